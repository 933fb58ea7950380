#include "src/cli/commands.hpp"

#include <array>

namespace shardmeter::cli {

namespace {

// One row per command (see commands.hpp for how to add one). Listed in this order by `shardmeter --help`.
constexpr std::array kCommands = {
    Command{"estimate", "estimate SCENARIO [--set KEY=VALUE]... [--prices FILE] [--json] [--batch FILE] [--data-dir DIR]",
            "Predict step time, throughput, MFU, memory, cost and the bottleneck of one scenario", run_estimate},
    Command{"search",
            "search SCENARIO [--set KEY=VALUE]... [-o FRONT.h5] [--method auto|exhaustive|anneal] [--threads N] "
            "[--seed S] [--evaluations N] [--time-limit S] [--all] [--csv FILE] [--json FILE] [--quiet] [--prices FILE] "
            "[--data-dir DIR]",
            "Search the scenario's search: space for the cost-throughput Pareto front; print it and write HDF5/CSV/JSON",
            run_search},
    Command{"validate", "validate [CSV] [--json] [--data-dir DIR]",
            "Predict every published run of the calibration table; print per-row error and MAPE", run_validate},
    Command{"calibrate", "calibrate [CSV] [--data-dir DIR]",
            "Fit one set of efficiency constants per GPU family to the table's calibrate rows", run_calibrate},
    Command{"list", "list gpus|models|links [--json] [--data-dir DIR]",
            "Browse the catalogs: GPU types (key numbers, prices, calibration status), model presets, link types",
            run_list},
    Command{"schema", "schema", "Print every scenario key with its type, unit, default and meaning (Markdown)",
            run_schema},
    Command{"report", "report FRONT.h5 [--baseline OLD.h5 [--force]] -o report.html [--markdown report.md]",
            "Write a self-contained HTML report (plot, tables, changes since a baseline) of a search's front",
            run_report},
    Command{"export", "export FRONT.h5 [--pick cheapest|fastest|knee|N] --format FORMAT [-o FILE] [--data-dir DIR]",
            "Export one plan of a front for plan-json, torchtitan, megatron, deepspeed or torchrun", run_export},
    Command{"import",
            "import hf|megatron|torchtitan|deepspeed INPUT [--scenario FILE | --gpu TYPE --nodes N] [--model PRESET] "
            "[--tokens N] [--seq-len N] [--set KEY=VALUE]... [-o FILE] [--estimate [--json]] [--data-dir DIR]",
            "Turn a Hugging Face config.json or a Megatron, torchtitan or DeepSpeed launch configuration into a "
            "scenario", run_import},
    Command{"nightly",
            "nightly DIR_OF_SCENARIOS --out RESULTS_DIR [--prices prices.yaml] [--date YYYY-MM-DD] [--threads N] "
            "[--data-dir DIR]",
            "Search every scenario of a directory, write reports and an index compared with the previous run",
            run_nightly},
    Command{"sweep",
            "sweep SCENARIO --axis KEY=VALUES [--axis KEY=VALUES] [--set KEY=VALUE]... [-o FILE.csv|FILE.h5] "
            "[--replan] [--plot FILE.svg] [--prices FILE] [--json] [--data-dir DIR]",
            "Evaluate a scenario along one or two axes (or its best plan at each point, --replan); report the "
            "island-size knee and the compute/communication transition with what drives them",
            run_sweep},
    Command{"thresholds",
            "thresholds SCENARIO [--set KEY=VALUE]... [--comm-share F] [--prices FILE] [--json] [--data-dir DIR]",
            "FSDP hardware thresholds (minimum bandwidth for a compute-bound step, largest tokens per GPU and "
            "longest sequence that fit) and, across islands, the WAN bandwidth for 50-99 % compute utilisation",
            run_thresholds},
    Command{"calibrate-network", "calibrate-network LOG... -o PROFILE.yaml [--nodes N --gpus-per-node G]",
            "Read nccl-tests logs (all_reduce_perf, all_gather_perf, ...) into a network profile an island names "
            "with network_profile (docs/network.md)",
            run_calibrate_network},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }

const Command* find_command(std::string_view name) {
  for (const Command& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace shardmeter::cli
