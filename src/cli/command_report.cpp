// `shardmeter report FRONT.h5 [--baseline OLD.h5] -o report.html [--markdown report.md]`: one self-contained HTML
// page (and optionally its Markdown variant) from a search's front file (results/report/report_html.hpp).
#include <filesystem>
#include <ostream>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/report/report_html.hpp"
#include "results/report/report_markdown.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/scenario/version.hpp"

namespace shardmeter::cli {

int run_report(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("report"));
  line.text("baseline", "OLD.h5",
            "an earlier front of the same scenario: adds plans that joined or left the front and the cost change at "
            "matched throughput");
  line.flag("force", "compare with a --baseline of another scenario (the report says so)");
  line.output("FILE.html", "the HTML report to write (required)");
  line.text("markdown", "FILE.md", "also write the Markdown variant");
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    return 0;
  }
  const std::string front_path = line.single_positional("FRONT.h5");
  if (!line.has("output")) throw line.usage("missing -o FILE.html");
  const std::string html_path = line.output();
  const std::string md_path = line.text("markdown");
  if (!md_path.empty() && std::filesystem::path(md_path) == std::filesystem::path(html_path))
    throw UsageError("shardmeter report: -o and --markdown name the same file " + html_path);

  try {
    const results::ResultFile front = results::read_front(front_path);
    std::optional<results::ResultFile> baseline;
    if (line.has("baseline")) baseline = results::read_front(line.text("baseline"));
    if (baseline && baseline->info.scenario_name != front.info.scenario_name && !line.flag("force"))
      throw UsageError("shardmeter report: --baseline " + line.text("baseline") + " is a front of scenario '" +
                       baseline->info.scenario_name + "', not '" + front.info.scenario_name +
                       "': its differences would mix scenario changes with price or model changes; add --force to "
                       "compare anyway (the report then says so)");
    results::ReportInput input;
    input.front = &front;
    input.front_label = front_path;
    input.baseline = baseline ? &*baseline : nullptr;
    input.baseline_label = line.text("baseline");
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
