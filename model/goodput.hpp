#pragma once
// Failures, checkpoints and restarts: the share of wall time that trains (goodput).
#include <cstdint>

#include "model/scenario.hpp"

namespace shardmeter::model {

// Llama 3 report (Dubey et al. 2024, §3.3.4): 419 unexpected interruptions in a 54-day snapshot on 16,384 H100s,
// i.e. 419 / (54 * 24 * 16384) = 1.97e-5 failures per GPU-hour.
inline constexpr double kDefaultFailuresPerGpuHour = 419.0 / (54.0 * 24.0 * 16384.0);

struct Goodput {
  double failures_per_hour = 0;     // whole job: GPUs x rate, plus spot preemptions
  double mtbf_s = 0;                // mean time between job interruptions
  double checkpoint_interval_s = 0; // Young's optimum sqrt(2 * delta * MTBF) (Young 1974; Daly 2006 first order)
  double fraction = 1;              // 1 - delta/tau - (tau/2 + restart)/MTBF, floored at 1 %
};

Goodput goodput(const ClusterSpec& cluster, const GoodputSpec& spec) noexcept;

}  // namespace shardmeter::model
