#pragma once
// One estimate as a JSON object (`shardmeter estimate --json`). Field names are a contract that other tools
// read; metric names come from model/metrics.hpp and plan names from results/columns.hpp, as in every other writer.
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/estimate.hpp"
#include "model/scenario.hpp"

namespace shardmeter::results {

// {"compute_s": ..., "tp_comm_s": ..., ..., "total_s": ...}
nlohmann::json time_json(const model::TimeBreakdown& time);
// {"weights_gb": ..., "activations_gb": ..., ..., "total_gb": ...}
nlohmann::json memory_json(const model::MemoryBreakdown& memory);

// The whole estimate: name, feasible, reject_reason, bottleneck, every metric of model::metrics(), the extra
// per-step figures, `time`, `memory`, `islands` (one object per island entry) and `plan` (scenario columns).
nlohmann::json estimate_json(const model::Scenario& scenario, const model::Estimate& estimate, std::string_view name);

}  // namespace shardmeter::results
