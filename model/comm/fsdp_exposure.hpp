#pragma once
// FSDP / ZeRO-3 as it executes: per-unit prefetch of the parameter all-gathers and the gradient reduce-scatters,
// and what of them stays on the critical path of one micro-batch (docs/model.md §6.3).
#include <algorithm>
#include <cmath>

#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

// Transformer blocks per FSDP unit on a stage of `layers_per_stage` blocks: plan.fsdp_unit_layers (the wrapping
// granularity; 1 = one unit per block, as torchtitan wraps), at most the whole stage (docs/model.md §6.3, §7.6).
inline double fsdp_unit_blocks(const PlanSpec& plan, double layers_per_stage) noexcept {
  return std::clamp(static_cast<double>(plan.fsdp_unit_layers), 1.0, std::max(1.0, layers_per_stage));
}
// FSDP units per pass over the stage: ceil(layers_per_stage / blocks per unit).
inline double fsdp_units(const PlanSpec& plan, double layers_per_stage) noexcept {
  return std::max(1.0, std::ceil(layers_per_stage / fsdp_unit_blocks(plan, layers_per_stage)));
}

struct FsdpPass {
  double all_gather_s = 0;        // all units' parameter all-gathers of one pass
  double reduce_scatter_s = 0;    // all units' gradient reduce-scatters
  double units = 1;               // FSDP units of the stage (fsdp_units)
  double forward_window_s = 0;    // forward compute of the stage
  double backward_window_s = 0;   // backward compute of the stage
  double slowdown = 0;            // contention of the collectives with overlapped compute (§6.6)
  bool gather_overlaps = true;    // plan.overlap_param_gather: the next unit's gather is prefetched
  bool reduce_overlaps = true;    // plan.overlap_grad_reduce: reduce-scatters run under the next unit's backward
  bool backward_gathers = true;   // plan.reshard_after_forward: backward gathers each unit again
};

// Exposed communication of one micro-batch (forward gathers + backward gathers and reduce-scatters).
double fsdp_exposed_s(const FsdpPass& pass) noexcept;

}  // namespace shardmeter::model
