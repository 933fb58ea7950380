// `shardmeter report FRONT.h5 [--baseline OLD.h5] -o report.html [--markdown report.md]`: one self-contained HTML
// page (and optionally its Markdown variant) from a search's front file (results/report/report_html.hpp).
#include <filesystem>
#include <ostream>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/report/report_html.hpp"
#include "results/report/report_markdown.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/commands.hpp"
#include "src/scenario/version.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

int run_report(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("report");
  po::options_description options("Options");
  options.add_options()
      ("baseline", po::value<std::string>()->value_name("OLD.h5"),
       "an earlier front of the same scenario: adds plans that joined or left the front and the cost change at "
       "matched throughput")
      ("output,o", po::value<std::string>()->value_name("FILE.html"), "the HTML report to write (required)")
      ("markdown", po::value<std::string>()->value_name("FILE.md"), "also write the Markdown variant")
      ("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "front");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    return 0;
  }
  const std::string front_path = single_positional(command, vm, "front", "FRONT.h5");
  if (!vm.count("output")) throw UsageError("shardmeter report: missing -o FILE.html (see shardmeter report --help)");
  const std::string html_path = vm["output"].as<std::string>();
  const std::string md_path = vm.count("markdown") ? vm["markdown"].as<std::string>() : "";
  if (!md_path.empty() && std::filesystem::path(md_path) == std::filesystem::path(html_path))
    throw UsageError("shardmeter report: -o and --markdown name the same file " + html_path);

  try {
    const results::ResultFile front = results::read_front(front_path);
    std::optional<results::ResultFile> baseline;
    if (vm.count("baseline")) baseline = results::read_front(vm["baseline"].as<std::string>());
    results::ReportInput input;
    input.front = &front;
    input.front_label = front_path;
    input.baseline = baseline ? &*baseline : nullptr;
    input.baseline_label = vm.count("baseline") ? vm["baseline"].as<std::string>() : "";
    input.generator = std::string("shardmeter ") + version();
    const results::ReportModel model = results::build_report_model(input);
    // Render both before writing either, so a failure leaves no file behind.
    const std::string html = results::render_report_html(model);
    const std::string markdown = md_path.empty() ? "" : results::render_report_markdown(model);
    results::write_text_atomically(html_path, html);
    if (!md_path.empty()) results::write_text_atomically(md_path, markdown);
  } catch (const results::ResultsError& e) {
    throw UsageError(std::string("shardmeter report: ") + e.what());
  }
  return 0;
}

}  // namespace shardmeter::cli
