#pragma once
// One estimate as a JSON object (`shardmeter estimate --json`). Field names are a contract that other tools
// read; metric names come from model/spec/metrics.hpp and plan names from results/columns.hpp, as in every other writer.
#include <span>
#include <string>
#include <string_view>

#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::results {

enum class JsonLayout {
  indented,   // indented by 2, with a final newline: `estimate --json`
  one_line,   // one line with a final newline: `estimate --batch` (JSON lines)
};

// The whole estimate: name, feasible, reject_reason, bottleneck, every metric of model::metrics(), the extra
// per-step figures, `time` ({"compute_s", ..., "total_s"}), `memory` ({"weights_gb", ..., "total_gb"}), `islands`
// (one object per island entry), `plan` (scenario columns) and `uncalibrated_gpus` (the GPU types of the scenario
// whose efficiency constants no published run fits; the caller knows the catalog). Keys sorted. `stack_source`,
// when given, is written as plan.stack_source: "given" (the scenario set plan.stack) or "implied" (the stack rule
// chose it, docs/scenarios.md "The software stack").
std::string estimate_json(const model::Scenario& scenario, const model::Estimate& estimate, std::string_view name,
                          std::span<const std::string> uncalibrated_gpus = {},
                          JsonLayout layout = JsonLayout::indented, std::string_view stack_source = {});

}  // namespace shardmeter::results
