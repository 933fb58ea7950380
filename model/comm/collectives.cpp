#include "model/comm/collectives.hpp"

#include "model/comm/nccl_algorithm.hpp"

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
  return nccl_collective(NetworkOp::reduce_scatter, bytes, g, l).time_s;  // docs/model.md §3.2, §3.5
}

double hierarchical_all_gather_s(double bytes, GroupPlacement g, const GroupLinks& l) noexcept {
  return nccl_collective(NetworkOp::all_gather, bytes, g, l).time_s;  // mirror image of the reduce-scatter
}

double hierarchical_all_reduce_s(double bytes, GroupPlacement g, const GroupLinks& l) noexcept {
  // RS inside the node, all-reduce of the S/G shard across nodes, AG inside the node [docs/model.md §3.2, §3.5]
  return nccl_collective(NetworkOp::all_reduce, bytes, g, l).time_s;
}

}  // namespace shardmeter::model
