#pragma once
// The one entry point of the analytical model: a scenario in, an estimate out. Pure and thread-safe.
#include "model/estimate.hpp"
#include "model/scenario.hpp"

namespace shardmeter::model {

Estimate evaluate(const Scenario& scenario) noexcept;

// The largest exposed component of a step (compute merges recompute; memory bandwidth merges the optimizer).
Bottleneck dominant_component(const TimeBreakdown& time) noexcept;

}  // namespace shardmeter::model
