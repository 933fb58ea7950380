// `shardmeter estimate SCENARIO [--set KEY=VALUE]... [--json] [--data-dir DIR]`: load one scenario, evaluate
// it, print a table (or one JSON object). An infeasible plan (e.g. out of memory) is a result, not an error.
#include <ostream>

#include "model/evaluate.hpp"
#include "results/files/estimate_json.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/commands.hpp"
#include "src/planning/search_section.hpp"
#include "src/text/estimate_table.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

int run_estimate(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("estimate");
  po::options_description options("Options");
  add_scenario_options(options);
  options.add_options()
      ("json", po::bool_switch(), "print one JSON object instead of the table (field names: docs/estimate.md)")
      ("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "scenario");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    return 0;
  }
  const std::string path = single_scenario(command, vm);
  const Catalog catalog = load_catalog(data_dir_option(vm));
  const LoadedScenario loaded = load_scenario_with_search(path, scenario_overrides(vm), catalog);
  const model::Estimate estimate = model::evaluate(loaded.scenario);

  if (vm["json"].as<bool>())
    out << results::estimate_json(loaded.scenario, estimate, loaded.name);
  else
    out << format_estimate_table(loaded, estimate);
  return 0;
}

}  // namespace shardmeter::cli
