#include "src/cli/commands.hpp"

#include <array>
#include <ostream>

#include "src/cli/cli.hpp"
#include "src/scenario/version.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

namespace {

// One row per command (see commands.hpp for how to add one). Listed in this order by `shardmeter --help`.
constexpr std::array kCommands = {
    Command{"estimate", "estimate SCENARIO [--set KEY=VALUE]... [--json] [--data-dir DIR]",
            "Predict step time, throughput, MFU, memory, cost and the bottleneck of one scenario", run_estimate},
    Command{"search",
            "search SCENARIO [--set KEY=VALUE]... [-o FRONT.h5] [--method auto|exhaustive|anneal] [--threads N] "
            "[--seed S] [--evaluations N] [--time-limit S] [--all] [--csv FILE] [--json FILE] [--quiet] [--data-dir DIR]",
            "Search the scenario's search: space for the cost-throughput Pareto front; print it and write HDF5/CSV/JSON",
            run_search},
    Command{"validate", "validate [CSV] [--data-dir DIR]",
            "Predict every published run of the calibration table; print per-row error and MAPE", run_validate},
    Command{"calibrate", "calibrate [CSV] [--data-dir DIR]",
            "Fit one set of efficiency constants per GPU family to the table's calibrate rows", run_calibrate},
    Command{"schema", "schema", "Print every scenario key with its type, unit, default and meaning (Markdown)",
            run_schema},
    Command{"report", "report FRONT.h5 [--baseline OLD.h5] -o report.html [--markdown report.md]",
            "Write a self-contained HTML report (plot, tables, changes since a baseline) of a search's front",
            run_report},
    Command{"export", "export FRONT.h5 [--pick cheapest|fastest|knee|N] --format FORMAT [-o FILE]",
            "Export one plan of a front for plan-json, torchtitan, megatron, deepspeed or torchrun", run_export},
    Command{"nightly",
            "nightly DIR_OF_SCENARIOS --out RESULTS_DIR [--prices prices.yaml] [--date YYYY-MM-DD] [--threads N]",
            "Search every scenario of a directory, write reports and an index compared with the previous run",
            run_nightly},
    Command{"sweep",
            "sweep SCENARIO --axis KEY=VALUES [--axis KEY=VALUES] [--set KEY=VALUE]... [-o FILE.csv|FILE.h5] "
            "[--plot FILE.svg] [--knee F] [--json] [--data-dir DIR]",
            "Evaluate a scenario along one or two axes; report the island-size knee and the compute/communication "
            "transition",
            run_sweep},
    Command{"thresholds", "thresholds SCENARIO [--set KEY=VALUE]... [--comm-share F] [--json] [--data-dir DIR]",
            "FSDP hardware thresholds: minimum bandwidth for a compute-bound step, largest tokens per GPU and "
            "longest sequence that fit",
            run_thresholds},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }

const Command* find_command(std::string_view name) {
  for (const Command& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

po::variables_map parse_command_line(const Command& command, const std::vector<std::string>& args,
                                     const po::options_description& options, const char* positional_name) {
  po::options_description all;
  all.add(options);
  all.add_options()(positional_name, po::value<std::vector<std::string>>(), "positional arguments");
  po::positional_options_description positional;
  positional.add(positional_name, -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError("shardmeter " + std::string(command.name) + ": " + e.what() + " (see shardmeter " +
                     std::string(command.name) + " --help)");
  }
  return vm;
}

void add_scenario_options(po::options_description& options) {
  options.add_options()
      ("set", po::value<std::vector<std::string>>()->composing()->value_name("KEY=VALUE"),
       "override one scenario key by its dotted path, e.g. --set plan.tp=4 --set cluster.islands.0.gpus=512 "
       "(repeatable; VALUE is YAML: 4, zero1, [1, 2], {gpu: h100-sxm, gpus: 64})")
      ("data-dir", po::value<std::string>()->value_name("DIR"),
       "catalogs and model presets (default: $SHARDMETER_DATA_DIR or the source tree's scenarios/)");
}

std::string single_positional(const Command& command, const po::variables_map& vm, const char* key, const char* label,
                              const char* what) {
  const auto positional = vm.count(key) ? vm[key].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (positional.size() == 1) return positional.front();
  const std::string name(command.name);
  const std::string explained = *what ? std::string(label) + " (" + what + ")" : std::string(label);
  throw UsageError("shardmeter " + name + ": " +
                   (positional.empty() ? "missing " + explained
                                       : "expected one " + std::string(label) + ", got " + std::to_string(positional.size())) +
                   " (see shardmeter " + name + " --help)");
}

std::string single_scenario(const Command& command, const po::variables_map& vm, const char* what) {
  return single_positional(command, vm, "scenario", "SCENARIO", what);
}

std::vector<Override> scenario_overrides(const po::variables_map& vm) {
  std::vector<Override> overrides;
  if (vm.count("set"))
    for (const std::string& text : vm["set"].as<std::vector<std::string>>()) overrides.push_back(parse_override(text));
  return overrides;
}

std::string data_dir_option(const po::variables_map& vm) {
  return vm.count("data-dir") ? vm["data-dir"].as<std::string>() : data_dir();
}

void print_command_help(const Command& command, const po::options_description& options, std::ostream& out) {
  out << "Usage: shardmeter " << command.usage << "\n" << command.summary << ".\n\n" << options;
}

}  // namespace shardmeter::cli
