// `shardmeter thresholds SCENARIO [--set K=V]... [--comm-share F] [--json] [--data-dir DIR]`: the FSDP hardware
// thresholds of a plan ("memory and bandwidth", docs/model.md §12): minimum node bandwidth for a compute-bound step,
// largest tokens per GPU that fit, whether any fitting micro-batch is compute-bound, longest sequence that fits.
#include <ostream>

#include "model/thresholds.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/commands.hpp"
#include "src/planning/search_section.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/text/thresholds_report.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

int run_thresholds(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("thresholds");
  po::options_description options("Options");
  add_scenario_options(options);
  options.add_options()
      ("comm-share", po::value<double>()->default_value(model::kComputeBoundCommShare)->value_name("F"),
       "compute-bound means exposed communication is at most F of the step")
      ("json", po::bool_switch(), "print one JSON object instead of the report")
      ("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "scenario");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    return 0;
  }
  const std::string path = single_scenario(command, vm);
  const double share = vm["comm-share"].as<double>();
  if (!(share > 0 && share < 1))
    throw UsageError("shardmeter thresholds: --comm-share " + std::to_string(share) + " is not a fraction in (0, 1)");
  const Catalog catalog = load_catalog(data_dir_option(vm));
  const LoadedScenario loaded = load_scenario_with_search(path, scenario_overrides(vm), catalog);
  const ThresholdsReport report = compute_thresholds(loaded, share);
  if (vm["json"].as<bool>())
    out << thresholds_json(report);
  else
    out << format_thresholds(report);
  return 0;
}

}  // namespace shardmeter::cli
