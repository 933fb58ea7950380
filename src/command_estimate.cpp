// `shardmeter estimate SCENARIO [--set KEY=VALUE]... [--json] [--data-dir DIR]`: load one scenario, evaluate
// it, print a table (or one JSON object). An infeasible plan (e.g. out of memory) is a result, not an error.
#include <ostream>

#include "model/evaluate.hpp"
#include "results/estimate_json.hpp"
#include "src/cli.hpp"
#include "src/commands.hpp"
#include "src/estimate_table.hpp"
#include "src/scenario_loader.hpp"
#include "src/version.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

int run_estimate(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("estimate");
  po::options_description options("Options");
  options.add_options()
      ("set", po::value<std::vector<std::string>>()->composing()->value_name("KEY=VALUE"),
       "override one scenario key by its dotted path, e.g. --set plan.tp=4 --set cluster.islands.0.gpus=512 "
       "(repeatable; VALUE is YAML: 4, zero1, [1, 2], {gpu: h100-sxm, gpus: 64})")
      ("json", po::bool_switch(), "print one JSON object instead of the table (field names: README.md)")
      ("data-dir", po::value<std::string>()->value_name("DIR"), "catalogs and model presets (default: $SHARDMETER_DATA_DIR or the "
       "source tree's scenarios/)")
      ("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "scenario");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    return 0;
  }
  const auto positional = vm.count("scenario") ? vm["scenario"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (positional.size() != 1)
    throw UsageError(std::string("shardmeter estimate: ") +
                     (positional.empty() ? "missing SCENARIO (a YAML file)" : "expected one SCENARIO, got " +
                                                                                  std::to_string(positional.size())) +
                     " (see shardmeter estimate --help)");

  std::vector<Override> overrides;
  if (vm.count("set"))
    for (const std::string& text : vm["set"].as<std::vector<std::string>>()) overrides.push_back(parse_override(text));
  const Catalog catalog = load_catalog(vm.count("data-dir") ? vm["data-dir"].as<std::string>() : data_dir());
  const LoadedScenario loaded = load_scenario(positional.front(), overrides, catalog);
  const model::Estimate estimate = model::evaluate(loaded.scenario);

  if (vm["json"].as<bool>())
    out << results::estimate_json(loaded.scenario, estimate, loaded.name).dump(2) << "\n";
  else
    out << format_estimate_table(loaded, estimate);
  return 0;
}

}  // namespace shardmeter::cli
