#include "model/comm/fsdp_exposure.hpp"

#include <algorithm>

#include "model/kernels/overlap.hpp"

namespace shardmeter::model {

// Per unit: a = all-gather, r = reduce-scatter, f / b = forward / backward compute. Forward: the first gather is
// exposed, each further one prefetched under the previous unit's forward. Backward: the first gather is exposed,
// then each unit's backward hides the next gather and the previous reduce-scatter (one NCCL stream carries both),
// the last reduce-scatter is exposed. Without a flag's overlap each of its collectives waits. Without resharding
// after forward the backward has no gathers (docs/model.md §6.3).
double fsdp_exposed_s(const FsdpPass& p) noexcept {
  const double units = std::max(1.0, p.units);
  const double a = p.all_gather_s / units, r = p.reduce_scatter_s / units;
  const double f = p.forward_window_s / units, b = p.backward_window_s / units;
  const double k = p.slowdown;
  const double forward = p.gather_overlaps ? a + (units - 1.0) * exposed_after_overlap(a, f, k) : units * a;
  if (!p.backward_gathers) {
    // Weights kept gathered since the forward (reshard_after_forward: false): backward only reduce-scatters.
    return forward + (p.reduce_overlaps ? (units - 1.0) * exposed_after_overlap(r, b, k) + r : units * r);
  }
  double backward = 0;
  if (p.gather_overlaps && p.reduce_overlaps) {
    backward = a + (units - 1.0) * exposed_after_overlap(a + r, b, k) + r;
  } else if (p.gather_overlaps) {
    backward = a + (units - 1.0) * exposed_after_overlap(a, b, k) + units * r;
  } else if (p.reduce_overlaps) {
    backward = units * a + (units - 1.0) * exposed_after_overlap(r, b, k) + r;
  } else {
    backward = units * (a + r);
  }
  return forward + backward;
}

}  // namespace shardmeter::model
