#include "model/comm/wan.hpp"

#include <algorithm>

namespace shardmeter::model {

WanRing wan_ring_of(const ClusterSpec& c, int islands) noexcept {
  WanRing r;
  r.islands = islands;
  // Walk the ring: consecutive replicas of one entry are joined by the entry's self link, entries by theirs.
  double slowest = 0, latency = 0, egress = 0;
  int edges = 0;
  auto visit = [&](int a, int b) {
    const WanLink& link = c.link(a, b);
    const double bw = link.achievable_bytes_per_s();
    slowest = edges == 0 ? bw : std::min(slowest, bw);
    latency = std::max(latency, link.latency_s);
    egress += link.egress_usd_per_byte;
    ++edges;
  };
  int previous = -1, first = -1;
  for (int e = 0; e < c.island_entries; ++e) {
    for (int k = 0; k < c.islands[static_cast<std::size_t>(e)].count; ++k) {
      if (previous >= 0) visit(previous, e);
      if (first < 0) first = e;
      previous = e;
    }
  }
  visit(previous, first);  // close the ring
  r.bytes_per_s = slowest;
  r.latency_s = latency;
  r.egress_usd_per_byte = egress / edges;
  return r;
}

double wan_all_reduce_s(double bytes, const WanRing& r) noexcept {
  if (r.islands < 2 || bytes <= 0) return 0.0;
  const double n = r.islands;
  return 2.0 * (n - 1.0) / n * bytes / r.bytes_per_s + 2.0 * (n - 1.0) * r.latency_s;
}

double wan_all_reduce_bytes(double bytes, const WanRing& r) noexcept {
  if (r.islands < 2) return 0.0;
  return 2.0 * (r.islands - 1.0) * bytes;
}

double wan_p2p_s(double bytes, const WanRing& r) noexcept {
  if (r.islands < 2 || bytes <= 0) return 0.0;
  return r.latency_s + bytes / r.bytes_per_s;
}

}  // namespace shardmeter::model
