#pragma once
// How much communication hides behind computation.

namespace shardmeter::model {

// Fraction of a pass's compute time that can hide collectives issued alongside it (bucketed DDP, FSDP
// prefetch). MODEL_NOTES §3.3: rho ~ 0.8-0.95 when prefetching works; FSDP paper Fig. 6b.
inline constexpr double kOverlapEfficiency = 0.9;

// Exposed part of `comm_s` when it runs alongside `window_s` of compute.
constexpr double exposed_after_overlap(double comm_s, double window_s) {
  const double hidden = kOverlapEfficiency * window_s;
  return comm_s > hidden ? comm_s - hidden : 0.0;
}

}  // namespace shardmeter::model
