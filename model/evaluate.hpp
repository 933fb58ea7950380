#pragma once
// The one entry point of the analytical model: a scenario in, an estimate out. Pure and thread-safe.
#include "model/estimate.hpp"
#include "model/scenario.hpp"

namespace shardmeter::model {

Estimate evaluate(const Scenario& scenario) noexcept;

// The peak MFU and HFU are measured against: the dense fp8 peak for precision fp8 (on a GPU that has one), else the
// dense 16-bit peak (docs/model.md §1.4).
double mfu_peak_flops_per_s(const GpuSpec& gpu, Precision precision) noexcept;

// The largest exposed component of a step (compute merges recompute; memory bandwidth merges the optimizer).
Bottleneck dominant_component(const TimeBreakdown& time) noexcept;

}  // namespace shardmeter::model
