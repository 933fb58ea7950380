#pragma once
// How much communication hides behind computation.

namespace shardmeter::model {

// Fraction of a pass's compute time that can hide collectives issued alongside it (bucketed DDP, FSDP
// prefetch). Assumed: about one unit per pass has nothing to hide under (docs/model.md §6.2).
inline constexpr double kOverlapEfficiency = 0.9;

// Cost on the critical path of `comm_s` of communication issued alongside `window_s` of compute: the part that
// does not fit under the window, plus the slowdown the hidden part inflicts on the compute it overlaps
// (`slowdown` per second hidden; NCCL kernels occupy SMs and HBM bandwidth, cf. Calculon's processor_usage).
constexpr double exposed_after_overlap(double comm_s, double window_s, double slowdown) {
  const double capacity = kOverlapEfficiency * window_s;
  const double hidden = comm_s < capacity ? comm_s : capacity;
  return (comm_s - hidden) + slowdown * hidden;
}

}  // namespace shardmeter::model
