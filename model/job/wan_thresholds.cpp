#include "model/job/wan_thresholds.hpp"

#include <algorithm>
#include <cmath>

#include "model/kernels/parameters.hpp"
#include "model/comm/wan.hpp"

namespace shardmeter::model {

namespace {

// Steps between two sends.
int send_every(const WanSchedule& s) {
  switch (s.method) {
    case WanMethod::data_parallel: return 1;
    case WanMethod::diloco: return std::max(1, s.inner_steps);
    case WanMethod::streaming_diloco: return std::max(1, s.inner_steps / std::max(1, s.fragments));
  }
  return 1;
}

// Whether step `step` sends: every step (data parallel), the last of every H (DiLoCo), or for Streaming one fragment
// every floor(H/P) steps until the P fragments of the period are sent (Douillard et al. 2025 §3.1: "a fragment is
// synchronized every 11, 5, and 2 steps" for P = 8, 16, 36 at H = 100).
bool sends(const WanSchedule& s, int step) {
  const int every = send_every(s);
  if (s.method != WanMethod::streaming_diloco) return (step + 1) % every == 0;
  const int local = step % std::max(1, s.inner_steps) + 1;
  return local % every == 0 && local / every <= std::max(1, s.fragments);
}

int deadline_steps(const WanSchedule& s) { return s.method == WanMethod::streaming_diloco ? s.overlap_steps : 0; }

double bytes_per_send(const WanSchedule& s) {
  const double ring = 2.0 * (s.islands - 1.0) / std::max(1, s.islands);
  const double fragment = s.method == WanMethod::streaming_diloco ? 1.0 / std::max(1, s.fragments) : 1.0;
  return s.payload_bytes * fragment * ring;
}

// Enough steps for a steady state: three sync periods (at least 30 steps).
int simulated_steps(const WanSchedule& s) {
  const int period = s.method == WanMethod::data_parallel ? 1 : std::max(1, s.inner_steps);
  return std::max(30, 3 * period);
}

// The smallest grid index k with 10^(-1 + 4k/49) >= gbps (up to rounding of the published cells).
int grid_index(double gbps) {
  const double k = std::ceil((std::log10(std::max(gbps, 1e-12)) + 1.0) * 49.0 / 4.0 - 1e-9);
  return static_cast<int>(std::clamp(k, 0.0, 49.0));
}

}  // namespace

WanSchedule backward_released(WanMethod method, double payload_bytes, int islands, double step_s) noexcept {
  WanSchedule s;
  s.method = method;
  s.payload_bytes = payload_bytes;
  s.islands = islands;
  s.step_s = step_s;
  s.release_begin_s = (1.0 - kBackwardShareOfStep) * step_s;
  s.release_window_s = kBackwardShareOfStep * step_s;
  return s;
}

double wan_stall_per_step_s(const WanSchedule& s, double transfer_s) noexcept {
  if (s.islands < 2 || transfer_s <= 0 || s.step_s <= 0) return 0.0;
  const int steps = simulated_steps(s);
  const int late = deadline_steps(s);
  const double bucket_s = transfer_s / kWanBuckets;
  // due[i]: the latest finish of transfers that must be done by the end of step i (a ring of late + 1 slots).
  constexpr int kMaxLate = 64;
  std::array<double, kMaxLate + 1> due{};
  const int slots = std::min(late, kMaxLate) + 1;
  due.fill(-1.0);
  double start = 0, link_free = 0, stalls = 0;
  // `late` more steps without sends settle the last transfers' deadlines (their stalls belong to these periods).
  for (int step = 0; step < steps + std::min(late, kMaxLate); ++step) {
    if (step < steps && sends(s, step)) {
      double finish = 0;
      for (int k = 0; k < kWanBuckets; ++k) {
        const double ready = start + s.release_begin_s + (k + 1.0) / kWanBuckets * s.release_window_s;
        finish = std::max(ready, link_free) + bucket_s;
        link_free = finish;
      }
      double& slot = due[static_cast<std::size_t>((step + slots - 1) % slots)];
      slot = std::max(slot, finish);
    }
    const double end = start + s.step_s;
    double& now_due = due[static_cast<std::size_t>(step % slots)];
    const double stall = std::max(0.0, now_due - end);
    now_due = -1.0;
    stalls += stall;
    start = end + stall;
  }
  return stalls / steps;
}

double wan_compute_utilization(const WanSchedule& s, double bytes_per_s) noexcept {
  if (s.islands < 2 || s.payload_bytes <= 0 || s.step_s <= 0) return 1.0;
  return s.step_s / (s.step_s + wan_stall_per_step_s(s, bytes_per_send(s) / bytes_per_s));
}

double wan_bandwidth_for_utilization(const WanSchedule& s, double target) noexcept {
  double lo = 1e3, hi = 1e15;  // bytes/s: 8 kbit/s to 8 Pbit/s
  if (wan_compute_utilization(s, lo) >= target) return 0.0;
  if (wan_compute_utilization(s, hi) < target) return hi;
  while (hi / lo > 1.001) {
    const double mid = std::sqrt(lo * hi);
    (wan_compute_utilization(s, mid) >= target ? hi : lo) = mid;
  }
  return hi;
}

double snap_up_to_grid_gbps(double gbps) noexcept { return std::pow(10.0, -1.0 + 4.0 * grid_index(gbps) / 49.0); }

int grid_steps_between(double a_gbps, double b_gbps) noexcept {
  // Nearest grid points: published cells are grid values rounded to one decimal (86.8 for 86.85).
  const auto nearest = [](double gbps) { return std::lround((std::log10(std::max(gbps, 1e-12)) + 1.0) * 49.0 / 4.0); };
  return static_cast<int>(nearest(b_gbps) - nearest(a_gbps));
}

WanThresholdTable wan_threshold_table(const Scenario& s, const Estimate& e) noexcept {
  WanThresholdTable t;
  const int islands = wan_ring(s.cluster).islands;
  if (islands < 2) return t;
  t.applicable = true;
  double step_s = 0;
  for (int i = 0; i < s.cluster.island_entries; ++i)
    step_s = std::max(step_s, e.islands[static_cast<std::size_t>(i)].step_time_s);
  const double params = count_parameters(s.model).total;
  const DilocoSpec& d = s.plan.diloco;
  t.rows[0].schedule =
      backward_released(WanMethod::data_parallel, params * s.training.grad_reduce_bytes, islands, step_s);
  t.rows[1].schedule = backward_released(WanMethod::diloco, params * d.outer_bits / 8.0, islands, step_s);
  t.rows[1].schedule.inner_steps = d.inner_steps;
  WanSchedule& streaming = t.rows[2].schedule;
  streaming = backward_released(WanMethod::streaming_diloco, params * d.outer_bits / 8.0, islands, step_s);
  streaming.inner_steps = d.inner_steps;
  streaming.fragments = d.fragments > 1 ? d.fragments : std::max(1, s.model.layers / 3);
  streaming.overlap_steps = std::max(1, d.overlap_steps);
  for (WanThresholdRow& row : t.rows) {
    for (std::size_t k = 0; k < kUtilizationTargets.size(); ++k)
      row.bytes_per_s[k] = wan_bandwidth_for_utilization(row.schedule, kUtilizationTargets[k]);
    const double slack = row.schedule.method == WanMethod::streaming_diloco ? row.schedule.overlap_steps * step_s : 0.0;
    row.peak_bytes_per_s = bytes_per_send(row.schedule) / (row.schedule.release_window_s + slack);
  }
  return t;
}

}  // namespace shardmeter::model
