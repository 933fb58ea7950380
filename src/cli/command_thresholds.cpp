// `shardmeter thresholds SCENARIO [--set K=V]... [--comm-share F] [--json] [--data-dir DIR]`: the FSDP hardware
// thresholds of a plan ("memory and bandwidth", docs/model.md §12): minimum node bandwidth for a compute-bound step,
// largest tokens per GPU that fit, whether any fitting micro-batch is compute-bound, longest sequence that fits.
#include <ostream>

#include "model/job/thresholds.hpp"
#include "src/cli/command_catalog.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/planning/search_section.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/text/thresholds_report.hpp"

namespace shardmeter::cli {

int run_thresholds(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("thresholds"));
  line.add(SharedOption::set).add(SharedOption::data_dir).add(SharedOption::prices);
  line.number("comm-share", "F", "compute-bound means exposed communication is at most F of the step",
              Range{}, model::kComputeBoundCommShare);  // compute_thresholds checks it is a fraction
  line.add(SharedOption::json);
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    return 0;
  }
  const std::string path = line.single_positional("SCENARIO", "a YAML file");
  const double share = line.number("comm-share");
  const Catalog catalog = load_command_catalog(line);
  const LoadedScenario loaded = load_scenario_with_search(path, line.overrides(), catalog);
  const ThresholdsReport report = compute_thresholds(loaded, share);
  if (line.json())
    out << thresholds_json(report);
  else
    out << format_thresholds(report);
  return 0;
}

}  // namespace shardmeter::cli
