#pragma once
// The one entry point of the analytical model: a scenario in, an estimate out. Pure and thread-safe.
#include "model/spec/estimate.hpp"
#include "model/kernels/parameters.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

Estimate evaluate(const Scenario& scenario) noexcept;

// The same estimate, written into `out` instead of returned: for callers that evaluate many scenarios into one
// Estimate (the search, the benchmark). `out` must be an Estimate that is default-constructed or was last written
// by evaluate/evaluate_into: its island slots from island_entries on hold default values. Unlike `evaluate`, which
// constructs a fresh Estimate (zero-filling its kMaxIslands island slots, about 2.4 KB), this resets only the
// scalar part and the island slots the previous estimate used. The result is identical, field for field.
void evaluate_into(const Scenario& scenario, Estimate& out) noexcept;
// evaluate_into for a scenario the caller has already found consistent (check_consistency(scenario) is empty, as
// for every candidate the search estimates): the consistency rules are not run a second time.
void evaluate_consistent_into(const Scenario& scenario, Estimate& out) noexcept;
// The same with the scenario's parameter counts already at hand (`params` == count_parameters(scenario.model)): the
// search counts them once per candidate for the memory screen and the estimate.
void evaluate_consistent_into(const Scenario& scenario, const ParameterCounts& params, Estimate& out) noexcept;
// The peak MFU and HFU are measured against: the dense fp8 peak for precision fp8 (on a GPU that has one), else the
// dense 16-bit peak (docs/model.md §1.4).
double mfu_peak_flops_per_s(const GpuSpec& gpu, Precision precision) noexcept;

// The resource that limits a step (docs/model.md §5.7): compute when the compute kernels (with recompute) fill at
// least kComputeBoundShare of it; else the largest of memory bandwidth (memory-bound kernels + optimizer),
// communication (exposed TP, PP, DP, EP, WAN and the straggler wait together, named by their largest part) and the
// pipeline bubble. (memory_capacity, for a plan that does not fit, is set by the caller.)
inline constexpr double kComputeBoundShare = 0.5;
Bottleneck limiting_resource(const TimeBreakdown& time) noexcept;

}  // namespace shardmeter::model
