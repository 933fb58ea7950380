#pragma once
// WAN bandwidth for a compute utilisation: the bucketed FIFO timeline of the DiLoCo bandwidth tables (Douillard et
// al. 2025, arXiv 2501.18512, §3.1 and App. Table 4; Charles et al. 2025, arXiv 2503.09799, App. E.1), for
// synchronous data parallelism, DiLoCo and Streaming DiLoCo. docs/model.md §12.3.
#include <array>
#include <cstdint>

#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

enum class WanMethod : std::uint8_t { data_parallel, diloco, streaming_diloco };

// Gradients (or one fragment's pseudo-gradients) become ready in kWanBuckets equal buckets, spread evenly over a
// release window of each step that sends (the backward); the buckets queue first in, first out on each island's
// WAN link. A step that sends must see its transfer finished by the end of that step (data parallel, DiLoCo) or of
// the step tau later (Streaming); training waits for the rest (a stall).
inline constexpr int kWanBuckets = 128;

struct WanSchedule {
  WanMethod method = WanMethod::data_parallel;
  double payload_bytes = 0;         // one island's full gradient (data parallel) or pseudo-gradient
  int islands = 2;                  // M: ring all-reduce sends 2(M-1)/M of the payload per island
  double step_s = 0;                // compute time of one (inner) step
  double release_begin_s = 0;       // when the first bucket may start, from the step's start
  double release_window_s = 0;      // over which the buckets become ready (the backward)
  int inner_steps = 1;              // H: DiLoCo sends every H steps
  int fragments = 1;                // P: Streaming sends one fragment every H/P steps
  int overlap_steps = 0;            // tau: Streaming deadline, in steps after the sending one
};

// A schedule released over the backward of each step: begin = step/3, window = 2 step/3 (§12.3).
WanSchedule backward_released(WanMethod method, double payload_bytes, int islands, double step_s) noexcept;

// Mean stall per step over whole sync periods when one transfer (all its buckets) occupies the link for
// `transfer_s`; and compute utilisation = compute / (compute + stalls) at `bytes_per_s` per island link.
double wan_stall_per_step_s(const WanSchedule& schedule, double transfer_s) noexcept;
double wan_compute_utilization(const WanSchedule& schedule, double bytes_per_s) noexcept;

// The smallest bandwidth (bytes/s per island link) at which utilisation reaches `target` (bisection in log
// bandwidth to 0.1 %); 0 if it is reached at any bandwidth.
double wan_bandwidth_for_utilization(const WanSchedule& schedule, double target) noexcept;

// The published tables' grid: 50 points 10^(-1 + 4k/49) Gbit/s from 0.1 to 1000. The smallest grid point at or
// above `gbps` (1000 beyond), and the number of grid steps between the grid points nearest two values (b minus a).
double snap_up_to_grid_gbps(double gbps) noexcept;
int grid_steps_between(double a_gbps, double b_gbps) noexcept;

inline constexpr std::array<double, 5> kUtilizationTargets = {0.50, 0.80, 0.90, 0.95, 0.99};

// The bandwidth table of one multi-island scenario (`shardmeter thresholds`): synchronous data parallelism
// (gradients at grad_reduce_bytes), DiLoCo (H and outer bits of plan.diloco) and Streaming DiLoCo (its fragments,
// or one per 3 layers as the paper; tau at least 1), all on the scenario's islands and inner step.
struct WanThresholdRow {
  WanSchedule schedule;
  std::array<double, 5> bytes_per_s{};   // per island link, for each of kUtilizationTargets
  double peak_bytes_per_s = 0;           // the largest transfer over the window it may hide behind
};
struct WanThresholdTable {
  bool applicable = false;               // at least two islands
  std::array<WanThresholdRow, 3> rows{}; // data_parallel, diloco, streaming_diloco
};

// `step_s`: the compute time of one (inner) step: the slowest island's standalone step of `estimate`.
WanThresholdTable wan_threshold_table(const Scenario& scenario, const Estimate& estimate) noexcept;

}  // namespace shardmeter::model
