#pragma once
// The human-readable report of `shardmeter estimate`: what was evaluated, step time and its breakdown,
// throughput, utilisation, memory against capacity, the bottleneck, cost, wall-clock and per-island rows.
#include <string>

#include "model/spec/estimate.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace shardmeter::cli {

std::string format_estimate_table(const LoadedScenario& loaded, const Catalog& catalog, const model::Estimate& estimate);

}  // namespace shardmeter::cli
