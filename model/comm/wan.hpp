#pragma once
// Collectives across islands over WAN links (docs/model.md §8.1-§8.4; DiLoCo §9.1).
#include "model/spec/cluster_spec.hpp"

namespace shardmeter::model {

// Share of a training step spent in the backward pass (backward FLOPs = 2x forward): the window a gradient or
// pseudo-gradient released during the backward may hide behind (Douillard et al. 2025 simulator; §12.3).
inline constexpr double kBackwardShareOfStep = 2.0 / 3.0;

// The ring every island joins, in scenario order (entry 0's replicas, then entry 1's, ...).
struct WanRing {
  int islands = 0;
  double bytes_per_s = 0;          // the slowest ring edge's achievable bandwidth: a ring runs at its slowest link
  double latency_s = 0;            // the largest one-way latency on the ring
  double egress_usd_per_byte = 0;  // mean egress price of the edges (each island pays for what it sends)
  // Measured edges (docs/model.md §8.7): whether a link of the ring names a profile (then `cluster` is walked again
  // for them), and the slowest bandwidth and largest latency of the edges without one (modelled_edges of them).
  const ClusterSpec* cluster = nullptr;
  bool measured = false;
  int modelled_edges = 0;
  double modelled_bytes_per_s = 0;
  double modelled_latency_s = 0;
};
// The ring walk for two or more islands (model/comm/wan.cpp).
WanRing wan_ring_of(const ClusterSpec& cluster, int islands) noexcept;
// Inline so that a single-island job (nearly every estimate) pays no call for the empty ring.
inline WanRing wan_ring(const ClusterSpec& cluster) noexcept {
  const int islands = cluster.total_islands();
  if (islands < 2) {
    WanRing r;
    r.islands = islands;
    return r;
  }
  return wan_ring_of(cluster, islands);
}

// Ring all-reduce of `bytes` (each island's full payload) across the islands:
// 2(I-1)/I * S / W_slowest + 2(I-1) * alpha_wan. With measured links the ring runs at its slowest edge: the largest
// of that over the unmeasured edges and, per profile, S x 2(n-1)/n / busbw(all-reduce, S, I) (§8.7).
double wan_all_reduce_s(double bytes, const WanRing& ring) noexcept;
// Bytes all islands together put on the WAN for that all-reduce: I * 2(I-1)/I * S = 2(I-1) * S.
double wan_all_reduce_bytes(double bytes, const WanRing& ring) noexcept;
// Point-to-point over one island boundary (a profile with sendrecv runs: S / busbw(sendrecv, S, 2 islands), §8.7).
double wan_p2p_s(double bytes, const WanRing& ring) noexcept;
// Whether any WAN link of the cluster names a profile (§8.7): the cheap test before walking the ring for it.
inline bool any_wan_profile(const ClusterSpec& c) noexcept {
  if (c.wan.profile != nullptr) return true;
  for (int i = 0; i < c.link_overrides; ++i)
    if (c.links[static_cast<std::size_t>(i)].link.profile != nullptr) return true;
  return false;
}
// Whether a measured link of the ring is read past the island counts its profile measured (§8.7, §3.6).
bool wan_profile_extrapolated(const WanRing& ring) noexcept;

}  // namespace shardmeter::model
