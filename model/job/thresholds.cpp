#include "model/job/thresholds.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/job/evaluate.hpp"

namespace shardmeter::model {

namespace {

bool fits(const Scenario& s) {
  const Estimate e = evaluate(s);
  return e.reject_reason == RejectReason::none && e.feasible;
}

}  // namespace

Scenario with_bandwidth_factor(const Scenario& s, double factor) noexcept {
  Scenario t = s;
  for (int i = 0; i < t.cluster.island_entries; ++i)
    t.cluster.islands[static_cast<std::size_t>(i)].node_network.bytes_per_s *= factor;
  return t;
}

Scenario with_micro_batch(const Scenario& s, int b) noexcept {
  Scenario t = s;
  // global_batch is a multiple of micro_batch (x replicas) in a consistent scenario, so this keeps the number of
  // micro-batches per replica, and with it every divisibility rule (model/parallel/consistency.cpp).
  const std::int64_t microbatches = s.training.micro_batch > 0 ? s.training.global_batch / s.training.micro_batch : 1;
  t.training.micro_batch = b;
  t.training.global_batch = microbatches * b;
  return t;
}

double exposed_comm_share(const Estimate& e) noexcept {
  if (e.reject_reason != RejectReason::none && e.reject_reason != RejectReason::out_of_memory) return 1.0;
  if (!(e.step_time_s > 0)) return 1.0;
  return e.exposed_comm_fraction;
}

double exposed_comm_share(const Scenario& s) noexcept { return exposed_comm_share(evaluate(s)); }

BandwidthThreshold min_bandwidth_for_compute_bound(const Scenario& s, double comm_share) noexcept {
  BandwidthThreshold t;
  const auto share = [&](double factor) { return exposed_comm_share(with_bandwidth_factor(s, factor)); };
  t.comm_share_at_current = share(1.0);
  // Sample the curve from kMinBandwidthFactor up, kBandwidthPointsPerDecade points per decade (docs/model.md §12.1):
  // the threshold is the first sampled factor at or under the cut, refined by bisection against the sample before
  // it; the floor is the lowest sampled share. The scenario's own bandwidth (factor 1) is a sample, so a plan that is
  // compute-bound at today's bandwidth always has a reachable threshold at or below it.
  const double decades = std::log10(kMaxBandwidthFactor / kMinBandwidthFactor);
  const int points = static_cast<int>(std::lround(decades * kBandwidthPointsPerDecade));
  const int today = static_cast<int>(std::lround(-std::log10(kMinBandwidthFactor) * kBandwidthPointsPerDecade));
  double first = 0, before = 0;
  t.comm_share_floor = 2.0;
  for (int i = 0; i <= points; ++i) {
    const double factor =
        i == today ? 1.0 : kMinBandwidthFactor * std::pow(10.0, static_cast<double>(i) / kBandwidthPointsPerDecade);
    const double x = i == today ? t.comm_share_at_current : share(factor);
    if (x < t.comm_share_floor) {
      t.comm_share_floor = x;
      t.floor_factor = factor;
    }
    if (first == 0 && x <= comm_share) {
      first = factor;
      if (i == 0) t.any_bandwidth = true;
    }
    if (first == 0) before = factor;
  }
  if (first == 0) return t;
  t.reachable = true;
  double lo = t.any_bandwidth ? first : before, hi = first;
  // Between the last sample above the cut and the first at or under it: bisect in log space to 0.01 %.
  while (hi / lo > 1.0001) {
    const double mid = std::sqrt(lo * hi);
    (share(mid) <= comm_share ? hi : lo) = mid;
  }
  const IslandSpec& island = s.cluster.islands[0];
  t.factor = hi;
  t.node_network_bytes_per_s = island.node_network.bytes_per_s * hi;
  t.per_gpu_bytes_per_s = t.node_network_bytes_per_s / std::max(1, island.gpus_per_node);
  return t;
}

TokensThreshold tokens_per_gpu_thresholds(const Scenario& s, int limit, double comm_share) noexcept {
  TokensThreshold t;
  // Largest fitting micro-batch: memory grows with the micro-batch, so double, then bisect.
  int good = 0, bad = 1;
  while (bad <= limit && fits(with_micro_batch(s, bad))) {
    good = bad;
    bad = bad > limit / 2 ? limit + 1 : bad * 2;
  }
  if (bad > limit) bad = limit + 1;
  while (bad - good > 1) {
    const int mid = good + (bad - good) / 2;
    (fits(with_micro_batch(s, mid)) ? good : bad) = mid;
  }
  t.max_micro_batch = good;
  t.max_tokens_per_gpu = static_cast<double>(good) * s.model.seq_len / std::max(1, s.plan.cp);
  // Smallest compute-bound micro-batch: an exact scan (an estimate costs well under a microsecond).
  for (int b = 1; b <= good; ++b) {
    if (exposed_comm_share(with_micro_batch(s, b)) <= comm_share) {
      t.min_compute_bound_micro_batch = b;
      t.compute_bound_exists = true;
      break;
    }
  }
  return t;
}

int max_sequence_length(const Scenario& s, int granularity, int limit) noexcept {
  // Context parallelism splits each sequence into 2 x cp chunks (model/parallel/consistency.cpp): lengths must divide.
  const long g = std::max(1, granularity);
  const long step = s.plan.cp > 1 ? std::lcm(g, 2L * s.plan.cp) : g;
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
  if (bad > limit) bad = (limit / step + 1) * step;
  while (bad - good > step) {
    const long mid = good + ((bad - good) / 2 / step) * step;
    (fits_at(mid) ? good : bad) = mid;
  }
  return static_cast<int>(good);
}

}  // namespace shardmeter::model
