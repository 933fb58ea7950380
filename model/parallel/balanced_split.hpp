#pragma once
// The whole-number balanced split of a batch over unequal island entries [docs/model.md §8.5].

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

#include "model/spec/cluster_spec.hpp"

namespace shardmeter::model {

// Micro-batches n_e for the busiest replica of each of `entries` entries that minimise the step max_e a_e + n_e·c_e
// subject to Σ w_e·n_e ≥ total_mb and 1 ≤ n_e ≤ ⌈total_mb / w_e⌉. a_e: the entry's fixed seconds; c_e > 0: seconds
// per micro-batch; w_e ≥ 1: its replicas; target_s: the continuous balance T with Σ w_e·(T − a_e)/c_e = total_mb.
//
// The smallest step is the earliest completion time a_e + k·c_e at which the capacity of all completions no later
// than it covers the batch. Every completion up to the continuous T fits (the floors below, a lower bound on any whole
// split); from there, adding one micro-batch per replica at a time to the entry that would finish it first adds the
// completions in rising order (each entry's rise with k), so it stops at exactly that time. Ties go to the lowest
// entry. Every pass adds at least one micro-batch of capacity, so the loop ends within total_mb passes; callers keep
// total_mb below 2^53 so that the counts stay exact.
inline void balanced_microbatches(const std::array<double, kMaxIslands>& a, const std::array<double, kMaxIslands>& c,
                                  const std::array<double, kMaxIslands>& w, int entries, double total_mb,
                                  double target_s, std::array<double, kMaxIslands>& n,
                                  std::array<double, kMaxIslands>& m) noexcept {
  double capacity = 0;
  for (int e = 0; e < entries; ++e) {
    const auto i = static_cast<std::size_t>(e);
    const double most = std::ceil(total_mb / w[i]);
    const double fit = (target_s - a[i]) / c[i];
    n[i] = std::isfinite(fit) ? std::clamp(std::floor(fit), 1.0, std::max(1.0, most)) : 1.0;
    capacity += w[i] * n[i];
  }
  while (capacity < total_mb) {
    std::size_t next = 0;
    for (std::size_t i = 1; i < static_cast<std::size_t>(entries); ++i)
      if (a[i] + (n[i] + 1) * c[i] < a[next] + (n[next] + 1) * c[next]) next = i;
    n[next] += 1;
    capacity += w[next];
  }
  // The entries' micro-batches m_e, summing to the batch: one per replica first, then up to the rest of each entry's
  // capacity, the entries that finish earliest filled first (ties: the lowest entry). An entry left short of w_e·n_e
  // runs ⌈m_e / w_e⌉ on its busiest replica, never more than n_e, so the step stays the smallest. Only when the batch
  // has fewer micro-batches than there are replicas does Σ m_e exceed it (every replica still runs one).
  double left = total_mb;
  for (int e = 0; e < entries; ++e) m[static_cast<std::size_t>(e)] = w[static_cast<std::size_t>(e)], left -= w[static_cast<std::size_t>(e)];
  std::array<bool, kMaxIslands> filled{};
  for (int pass = 0; pass < entries && left > 0; ++pass) {
    std::size_t first = 0;
    bool found = false;
    for (std::size_t i = 0; i < static_cast<std::size_t>(entries); ++i)
      if (!filled[i] && (!found || a[i] + n[i] * c[i] < a[first] + n[first] * c[first])) first = i, found = true;
    filled[first] = true;
    const double more = std::min(left, w[first] * (n[first] - 1));
    m[first] += more;
    left -= more;
  }
}

}  // namespace shardmeter::model
