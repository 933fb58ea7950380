// `shardmeter estimate SCENARIO [--set KEY=VALUE]... [--json] [--data-dir DIR]`: load one scenario, evaluate
// it, print a table (or one JSON object). An infeasible plan (e.g. out of memory) is a result, not an error.
#include <ostream>

#include "model/evaluate.hpp"
#include "results/files/estimate_json.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/planning/search_section.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/text/estimate_table.hpp"

namespace shardmeter::cli {

int run_estimate(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("estimate"));
  line.add(SharedOption::set).add(SharedOption::data_dir).add(SharedOption::json);
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    return 0;
  }
  const std::string path = line.single_positional("SCENARIO", "a YAML file");
  const Catalog catalog = load_catalog(line.data_dir());
  const LoadedScenario loaded = load_scenario_with_search(path, line.overrides(), catalog);
  const model::Estimate estimate = model::evaluate(loaded.scenario);

  if (line.json()) {
    std::vector<std::string> gpus;
    for (int i = 0; i < loaded.scenario.cluster.island_entries; ++i)
      gpus.emplace_back(loaded.scenario.cluster.islands[static_cast<std::size_t>(i)].gpu.name.view());
    out << results::estimate_json(loaded.scenario, estimate, loaded.name, uncalibrated_among(catalog, gpus));
  } else {
    out << format_estimate_table(loaded, catalog, estimate);
  }
  return 0;
}

}  // namespace shardmeter::cli
