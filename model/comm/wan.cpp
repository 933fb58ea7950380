#include "model/comm/wan.hpp"

#include <algorithm>

#include "model/comm/network_profile.hpp"

namespace shardmeter::model {

namespace {

// The ring's edges in order: consecutive replicas of one entry are joined by the entry's self link, entries by
// theirs, and the last closes the ring to the first.
template <typename Visit>
void for_each_edge(const ClusterSpec& c, Visit&& visit) {
  int previous = -1, first = -1;
  for (int e = 0; e < c.island_entries; ++e) {
    for (int k = 0; k < c.islands[static_cast<std::size_t>(e)].count; ++k) {
      if (previous >= 0) visit(c.link(previous, e));
      if (first < 0) first = e;
      previous = e;
    }
  }
  visit(c.link(previous, first));
}

}  // namespace

WanRing wan_ring_of(const ClusterSpec& c, int islands) noexcept {
  WanRing r;
  r.islands = islands;
  r.cluster = &c;
  double slowest = 0, latency = 0, egress = 0;
  int edges = 0;
  for_each_edge(c, [&](const WanLink& link) {
    const double bw = link.achievable_bytes_per_s();
    slowest = edges == 0 ? bw : std::min(slowest, bw);
    latency = std::max(latency, link.latency_s);
    egress += link.egress_usd_per_byte;
    ++edges;
    if (link.profile != nullptr) {
      r.measured = true;
    } else {
      r.modelled_bytes_per_s = r.modelled_edges == 0 ? bw : std::min(r.modelled_bytes_per_s, bw);
      r.modelled_latency_s = std::max(r.modelled_latency_s, link.latency_s);
      ++r.modelled_edges;
    }
  });
  r.bytes_per_s = slowest;
  r.latency_s = latency;
  r.egress_usd_per_byte = egress / edges;
  return r;
}

namespace {

double modelled_all_reduce_s(double bytes, double n, double bytes_per_s, double latency_s) noexcept {
  return 2.0 * (n - 1.0) / n * bytes / bytes_per_s + 2.0 * (n - 1.0) * latency_s;
}

// The slowest measured edge's time for `op` over the ring (nccl-tests' time = S x factor / busbw, §3.6), with the
// profile's node counts read as islands and its GPUs per node as ranks per island; 0 when no profile measured `op`.
double measured_s(NetworkOp op, double bytes, const WanRing& r) noexcept {
  double t = 0;
  const int nodes = op == NetworkOp::send_recv ? 2 : r.islands;
  for_each_edge(*r.cluster, [&](const WanLink& link) {
    if (link.profile == nullptr) return;
    const ProfileBandwidth m = profile_busbw(*link.profile, op, bytes, nodes);
    if (m.busbw_bytes_per_s > 0)
      t = std::max(t, bytes * busbw_factor(op, nodes * std::max(1, link.profile->gpus_per_node)) / m.busbw_bytes_per_s);
  });
  return t;
}

}  // namespace

double wan_all_reduce_s(double bytes, const WanRing& r) noexcept {
  if (r.islands < 2 || bytes <= 0) return 0.0;
  const double n = r.islands;
  if (!r.measured) return modelled_all_reduce_s(bytes, n, r.bytes_per_s, r.latency_s);
  const double modelled =
      r.modelled_edges > 0 ? modelled_all_reduce_s(bytes, n, r.modelled_bytes_per_s, r.modelled_latency_s) : 0.0;
  return std::max(modelled, measured_s(NetworkOp::all_reduce, bytes, r));
}

double wan_all_reduce_bytes(double bytes, const WanRing& r) noexcept {
  if (r.islands < 2) return 0.0;
  return 2.0 * (r.islands - 1.0) * bytes;
}

double wan_p2p_s(double bytes, const WanRing& r) noexcept {
  if (r.islands < 2 || bytes <= 0) return 0.0;
  const double modelled = r.latency_s + bytes / r.bytes_per_s;
  if (!r.measured) return modelled;
  const double measured = measured_s(NetworkOp::send_recv, bytes, r);
  if (measured <= 0) return modelled;  // no sendrecv runs: the links' own figures
  return r.modelled_edges > 0 ? std::max(measured, r.modelled_latency_s + bytes / r.modelled_bytes_per_s) : measured;
}

bool wan_profile_extrapolated(const WanRing& r) noexcept {
  if (!r.measured) return false;
  bool out = false;
  for_each_edge(*r.cluster, [&](const WanLink& link) {
    if (link.profile != nullptr && !profile_covers(*link.profile, r.islands)) out = true;
  });
  return out;
}

}  // namespace shardmeter::model
