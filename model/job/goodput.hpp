#pragma once
// Failures, checkpoints and restarts: the share of wall time that trains (goodput), docs/model.md §10.
#include <array>
#include <cstdint>

#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

// Llama 3 report (Dubey et al. 2024, §3.3.4): 419 unexpected interruptions in a 54-day snapshot on 16,384 H100s,
// i.e. 419 / (54 * 24 * 16384) = 1.97e-5 failures per GPU-hour.
inline constexpr double kDefaultFailuresPerGpuHour = 419.0 / (54.0 * 24.0 * 16384.0);

// Asynchronous checkpoints block only for the copy of the state to host memory, at this rate per GPU
// (PCIe Gen4/Gen5 x16 achieves 25-50 GB/s; assumed, docs/model.md §10.2).
inline constexpr double kHostCopyBytesPerSPerGpu = 25e9;

// A synchronous job that loses more than half its wall time to checkpoints, rework and restarts is reported
// infeasible (RejectReason::goodput_below_floor) rather than given a wall clock: the first-order model assumes
// failures far apart compared with the checkpoint interval (Young 1974; Daly 2006), which no longer holds there.
// The 50 % line is assumed (docs/model.md §10.4).
inline constexpr double kMinSynchronousGoodput = 0.5;

// What the goodput model needs from the job.
struct GoodputJob {
  bool per_island = false;                  // DiLoCo: a failure takes its island out; the others continue
  double outer_period_s = 0;                // DiLoCo: the inner progress an island can lose is up to one period
  double checkpoint_bytes_per_gpu = 0;      // weights + optimizer (+ outer) state of the fullest GPU
  std::array<double, kMaxIslands> token_share{};  // each island's (of each entry) share of the job's tokens
};

struct Goodput {
  GoodputParts parts;
  double checkpoint_interval_s = 0; // Young's optimum sqrt(2 * delta * MTBF) (Young 1974; Daly 2006 first order)
  double fraction = 1;              // 1 - the losses of GoodputParts, floored at 1 %
  bool below_floor = false;         // synchronous and 1 - the losses < kMinSynchronousGoodput (§10.4)
};

Goodput goodput(const ClusterSpec& cluster, const GoodputSpec& spec, const GoodputJob& job) noexcept;

}  // namespace shardmeter::model
