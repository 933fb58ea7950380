#include "model/job/diloco.hpp"

#include <algorithm>
#include <cmath>

#include "model/job/wan_thresholds.hpp"

namespace shardmeter::model {

OuterSync outer_sync(double parameters, const DilocoSpec& d, const WanRing& ring, double t) noexcept {
  OuterSync o;
  o.payload_bytes = parameters * d.outer_bits / 8.0;
  o.wan_bytes = wan_all_reduce_bytes(o.payload_bytes, ring);
  const double fragments = std::max(1, d.fragments);
  o.fragment_sync_s = wan_all_reduce_s(o.payload_bytes / fragments, ring);
  if (d.overlap_steps <= 0) {
    o.exposed_s = fragments * o.fragment_sync_s;   // blocking: every fragment's all-reduce waits
    return o;
  }
  // Streaming with overlap: the bucketed FIFO timeline of docs/model.md §12.3 (each fragment released over the
  // backward of the step that sends it, due tau steps later), over one outer period.
  WanSchedule w = backward_released(WanMethod::streaming_diloco, o.payload_bytes, ring.islands, t);
  w.inner_steps = d.inner_steps;
  w.fragments = d.fragments;
  w.overlap_steps = d.overlap_steps;
  o.exposed_s = wan_stall_per_step_s(w, o.fragment_sync_s) * d.inner_steps;
  return o;
}

double diloco_reduction(const DilocoSpec& d, int grad_reduce_bytes) noexcept {
  return d.inner_steps * (8.0 * grad_reduce_bytes) / d.outer_bits;
}

Convergence diloco_token_efficiency(const DilocoSpec& d, int replicas, double parameters,
                                    double tokens_per_parameter, int layers) noexcept {
  if (d.token_efficiency >= 0) return Convergence{0, d.token_efficiency, 0};
  Convergence c = diloco_convergence(ConvergenceInput{parameters, replicas, d.inner_steps, d.overlap_steps,
                                                      tokens_per_parameter, d.fragments, layers});
  // The user's extra penalty on top of the fitted model (default 0).
  const double doublings = std::max(0.0, std::log2(std::max(1, d.inner_steps) / 30.0));
  c.token_efficiency *= std::pow(1.0 - d.efficiency_loss_per_h_doubling, doublings);
  return c;
}

}  // namespace shardmeter::model
