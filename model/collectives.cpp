#include "model/collectives.hpp"

namespace shardmeter::model {

double ring_all_gather_s(double bytes, int ranks, double bytes_per_s, double latency_s) noexcept {
  if (ranks <= 1 || bytes <= 0) return 0.0;
  const double n = ranks;
  return (n - 1.0) * latency_s + (n - 1.0) / n * bytes / bytes_per_s;  // Thakur et al. 2005 §4
}

double ring_reduce_scatter_s(double bytes, int ranks, double bytes_per_s, double latency_s) noexcept {
  // Same bandwidth term as all-gather; the reduction itself runs at memory speed and is hidden.
  return ring_all_gather_s(bytes, ranks, bytes_per_s, latency_s);
}

double ring_all_reduce_s(double bytes, int ranks, double bytes_per_s, double latency_s) noexcept {
  if (ranks <= 1 || bytes <= 0) return 0.0;
  const double n = ranks;
  return 2.0 * (n - 1.0) * latency_s + 2.0 * (n - 1.0) / n * bytes / bytes_per_s;  // Thakur et al. 2005 §4
}

double p2p_s(double bytes, double bytes_per_s, double latency_s) noexcept {
  if (bytes <= 0) return 0.0;
  return latency_s + bytes / bytes_per_s;
}

double hierarchical_reduce_scatter_s(double bytes, GroupPlacement g, const GroupLinks& l) noexcept {
  // Inside the node: (G-1)/G * S over scale-up; across nodes: the node's S/G shard, (k-1)/k over scale-out.
  const double intra = ring_reduce_scatter_s(bytes, g.per_node, l.scaleup_bytes_per_s, l.scaleup_latency_s);
  const double inter =
      ring_reduce_scatter_s(bytes / g.per_node, g.nodes, l.scaleout_bytes_per_s, l.scaleout_latency_s);
  return intra + inter;
}

double hierarchical_all_gather_s(double bytes, GroupPlacement g, const GroupLinks& l) noexcept {
  return hierarchical_reduce_scatter_s(bytes, g, l);  // mirror image of the reduce-scatter
}

double hierarchical_all_reduce_s(double bytes, GroupPlacement g, const GroupLinks& l) noexcept {
  // RS inside the node, all-reduce of the S/G shard across nodes, AG inside the node [docs/model.md §3.2]
  const double intra = 2.0 * ring_reduce_scatter_s(bytes, g.per_node, l.scaleup_bytes_per_s, l.scaleup_latency_s);
  const double inter =
      ring_all_reduce_s(bytes / g.per_node, g.nodes, l.scaleout_bytes_per_s, l.scaleout_latency_s);
  return intra + inter;
}

}  // namespace shardmeter::model
