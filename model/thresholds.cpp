#include "model/thresholds.hpp"

#include <cmath>

#include "model/consistency.hpp"
#include "model/evaluate.hpp"

namespace shardmeter::model {

namespace {

Scenario with_bandwidth_factor(const Scenario& s, double factor) {
  Scenario t = s;
  for (int i = 0; i < t.cluster.island_entries; ++i) t.cluster.islands[static_cast<std::size_t>(i)].node_network.bytes_per_s *= factor;
  return t;
}

// The same plan with micro-batch b and one micro-batch per replica per step.
Scenario with_micro_batch(const Scenario& s, int b) {
  Scenario t = s;
  t.training.micro_batch = b;
  const int dp = total_data_parallel(s);
  t.training.global_batch = static_cast<std::int64_t>(b) * std::max(1, dp) * std::max(1, s.plan.pp);
  return t;
}

bool fits(const Scenario& s) {
  const Estimate e = evaluate(s);
  return e.reject_reason == RejectReason::none && e.feasible;
}

}  // namespace

double exposed_comm_share(const Scenario& s) noexcept {
  const Estimate e = evaluate(s);
  if (e.step_time_s <= 0) return 1.0;
  return (e.time.tp_comm_s + e.time.pp_comm_s + e.time.dp_comm_s + e.time.wan_s) / e.step_time_s;
}

BandwidthThreshold min_bandwidth_for_compute_bound(const Scenario& s, double comm_share) noexcept {
  BandwidthThreshold t;
  t.comm_share_at_current = exposed_comm_share(s);
  constexpr double kMaxFactor = 1000.0;
  if (exposed_comm_share(with_bandwidth_factor(s, kMaxFactor)) > comm_share) return t;
  t.reachable = true;
  // More bandwidth is never slower, so the share falls monotonically: bisect the factor in log space.
  double lo = 1e-4, hi = kMaxFactor;
  if (exposed_comm_share(with_bandwidth_factor(s, lo)) <= comm_share) hi = lo;
  for (int i = 0; i < 60 && hi / lo > 1.001; ++i) {
    const double mid = std::sqrt(lo * hi);
    (exposed_comm_share(with_bandwidth_factor(s, mid)) <= comm_share ? hi : lo) = mid;
  }
  const IslandSpec& island = s.cluster.islands[0];
  t.node_network_bytes_per_s = island.node_network.bytes_per_s * hi;
  t.per_gpu_bytes_per_s = t.node_network_bytes_per_s / island.gpus_per_node;
  return t;
}

TokensThreshold tokens_per_gpu_thresholds(const Scenario& s, int limit, double comm_share) noexcept {
  TokensThreshold t;
  // Largest fitting micro-batch: memory grows with the micro-batch, so double then bisect.
  int good = 0, bad = 1;
  while (bad <= limit && fits(with_micro_batch(s, bad))) {
    good = bad;
    bad *= 2;
  }
  if (bad > limit) bad = limit + 1;
  while (bad - good > 1) {
    const int mid = good + (bad - good) / 2;
    (fits(with_micro_batch(s, mid)) ? good : bad) = mid;
  }
  t.max_micro_batch = good;
  t.max_tokens_per_gpu = static_cast<double>(good) * s.model.seq_len / s.plan.cp;
  for (int b = 1; b <= good; b = b < 8 ? b + 1 : b * 2) {
    if (exposed_comm_share(with_micro_batch(s, b)) <= comm_share) {
      t.min_compute_bound_micro_batch = b;
      t.compute_bound_exists = true;
      break;
    }
  }
  if (!t.compute_bound_exists && good > 0 && exposed_comm_share(with_micro_batch(s, good)) <= comm_share) {
    t.min_compute_bound_micro_batch = good;
    t.compute_bound_exists = true;
  }
  return t;
}

int max_sequence_length(const Scenario& s, int granularity, int limit) noexcept {
  const int step = std::max(granularity, 2 * s.plan.cp);
  auto fits_at = [&](long len) {
    Scenario t = s;
    t.model.seq_len = static_cast<int>(len);
    return fits(t);
  };
  long good = 0, bad = step;
  while (bad <= limit && fits_at(bad)) {
    good = bad;
    bad *= 2;
  }
  if (bad > limit) bad = (limit / step + 1) * static_cast<long>(step);
  while (bad - good > step) {
    const long mid = good + ((bad - good) / 2 / step) * step;
    (fits_at(mid) ? good : bad) = mid;
  }
  return static_cast<int>(good);
}

}  // namespace shardmeter::model
