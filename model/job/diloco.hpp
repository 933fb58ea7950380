#pragma once
// DiLoCo and Streaming DiLoCo across islands (Douillard et al. 2023, arXiv 2311.08105; 2025, arXiv 2501.18512).
#include "model/job/diloco_convergence.hpp"
#include "model/spec/plan_spec.hpp"
#include "model/comm/wan.hpp"

namespace shardmeter::model {

struct OuterSync {
  double payload_bytes = 0;        // pseudo-gradient bytes of one island: params * outer_bits / 8
  double wan_bytes = 0;            // all islands together, per outer step (ring all-reduce)
  double fragment_sync_s = 0;      // one fragment's all-reduce over the slowest WAN edge
  double exposed_s = 0;            // per outer step, after streaming and overlap
};

// Per outer step of H inner steps of `inner_step_s` each (the slowest island's), T_frag = allreduce(P * bits/8 /
// fragments): without overlap (tau = 0) every fragment blocks, exposed = F * T_frag; with overlap, the stalls of
// the bucketed FIFO timeline of model/job/wan_thresholds.hpp over one outer period (each fragment released over the
// backward of the step that sends it and due tau steps later; docs/model.md §9.2, §12.3).
OuterSync outer_sync(double parameters, const DilocoSpec& diloco, const WanRing& ring, double inner_step_s) noexcept;

// Communication reduction against synchronous data parallelism: H x (gradient bits / outer bits).
double diloco_reduction(const DilocoSpec& diloco, int grad_reduce_bytes) noexcept;

// Loss-equivalent tokens per trained token for M replicas of an N-parameter model: the fitted convergence model
// (model/job/diloco_convergence.hpp, docs/model.md §9.4), times (1 - efficiency_loss_per_h_doubling)^max(0, log2(H/30))
// (an extra penalty a user may add, default 0). A fixed `token_efficiency` overrides all of it (and warns of nothing).
Convergence diloco_token_efficiency(const DilocoSpec& diloco, int replicas, double parameters,
                                    double tokens_per_parameter, int layers = 0) noexcept;

}  // namespace shardmeter::model
