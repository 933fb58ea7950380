#pragma once
// FSDP / ZeRO-3 as it executes: per-unit prefetch of the parameter all-gathers and the gradient reduce-scatters,
// and what of them stays on the critical path of one micro-batch (docs/model.md §6.3).

namespace shardmeter::model {

struct FsdpPass {
  double all_gather_s = 0;        // all units' parameter all-gathers of one pass
  double reduce_scatter_s = 0;    // all units' gradient reduce-scatters
  double units = 1;               // FSDP units (blocks) of the stage
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
