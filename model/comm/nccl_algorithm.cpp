#include "model/comm/nccl_algorithm.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "model/comm/contention.hpp"

namespace shardmeter::model {

namespace {

// NCCL's correction of the tree's bandwidth for medium sizes, by floor(log2(bytes / 64)), LL and Simple rows of
// treeCorrectionFactor (NVIDIA/nccl@01afd20:src/graph/tuning.cc; docs/model.md §3.5).
constexpr double kTreeCorrectionLl[22] = {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6,
                                          .5,  .4,  .4,  .5,  .6, .7, .8, .9, 1.0, 1.0, 1.0};
constexpr double kTreeCorrectionSimple[22] = {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6,
                                              .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9};

// floor(log2(x)) for x >= 1 from the exponent bits (0 below 1, at most 62): NCCL's log2i.
int floor_log2(double x) noexcept {
  if (!(x >= 1.0)) return 0;
  const auto exponent = static_cast<int>((std::bit_cast<std::uint64_t>(x) >> 52) & 0x7ffU) - 1023;
  return std::min(exponent, 62);
}

}  // namespace

CollectiveCost nccl_collective(NetworkOp op, double bytes, GroupPlacement g, const GroupLinks& l) noexcept {
  const int n = g.per_node * g.nodes;
  if (n <= 1 || bytes <= 0) return {};
  // A measured network (docs/model.md §3.6): time = bytes x nccl-tests' bus factor / measured busbw.
  if (l.profile != nullptr) {
    const ProfileBandwidth m = profile_busbw(*l.profile, op, bytes, g.nodes);
    if (m.busbw_bytes_per_s > 0)
      return {bytes * busbw_factor(op, n) / m.busbw_bytes_per_s, CollectiveAlgorithm::measured, m.extrapolated};
  }
  const bool all_reduce = op == NetworkOp::all_reduce;
  const double G = g.per_node, k = g.nodes;
  // Fabric (§3.5): past one leaf (rail group or rack) a ring crosses spine switches (3 hops instead of 1) and shares
  // the leaf's uplinks at the oversubscription ratio.
  const bool spans_leaves = l.leaf_nodes > 0 && g.nodes > l.leaf_nodes;
  const double out_bw =
      spans_leaves ? l.scaleout_bytes_per_s / std::max(1.0, l.oversubscription) : l.scaleout_bytes_per_s;
  const double hops = g.nodes > 1 ? (spans_leaves ? 3.0 : 1.0) : 0.0;
  const double a_up = l.scaleup_latency_s;
  const double a_out = l.scaleout_latency_s + hops * l.hop_latency_s;

  // Ring/Simple bandwidth time: the two-level form of §3.2 (intra-node stage over scale-up, the node's 1/G shard
  // across nodes).
  double ring_bw_s = 0;
  if (g.per_node > 1) ring_bw_s += (G - 1.0) / G * bytes / l.scaleup_bytes_per_s;
  if (g.nodes > 1) ring_bw_s += (k - 1.0) / k * (bytes / G) / out_bw;
  if (all_reduce) ring_bw_s *= 2.0;
  // Steps of NCCL's flat ring over all n ranks, of which those crossing a node boundary run at network latency.
  const double steps = all_reduce ? 2.0 * (n - 1) : n - 1.0;
  const double inter_steps = all_reduce ? 2.0 * (k - 1.0) : k - 1.0;
  const double intra_steps = steps - inter_steps;
  const double ll_intra = g.nodes > 1 ? kNcclLlIntraMultiNode : 1.0;

  const double us = 1e-6;
  double ring_simple_lat = kNcclBaseLatencyRingSimpleUs * us + intra_steps * a_up + inter_steps * a_out;
  // NCCL's "plateau effect of ring" on a large all-reduce across nodes (bytes / (channels x ranks) >= 64), capped at
  // one more base latency: the ring all-reduce is its reduce-scatter and all-gather run back to back in one kernel
  // (§3.2), so it never costs more than those two halves (whose latencies sum to this latency + one base latency);
  // a DDP all-reduce is thus never charged more than ZeRO-1's same traffic (§3.5).
  if (all_reduce && g.nodes > 1 && bytes >= 64.0 * kNcclChannelsInterNode * n)
    ring_simple_lat = std::min(ring_simple_lat * kNcclRingPlateau, ring_simple_lat + kNcclBaseLatencyRingSimpleUs * us);
  CollectiveCost best{ring_simple_lat + ring_bw_s, CollectiveAlgorithm::ring, false};
  // Bandwidth-bound messages: LL costs at least 3 B_ring and a tree at least B_ring / 0.9 (n/(2(n-1)) >= 1/2, the
  // corrections <= 1), so once B_ring >= 10 x the ring's latency neither can beat ring/Simple: skip them (the result
  // is the same; most of a step's bytes move in such messages).
  if (ring_bw_s >= 10.0 * ring_simple_lat) return best;
  auto consider = [&](double t, CollectiveAlgorithm a) {
    if (t < best.time_s) best = {t, a, false};
  };
  const double ring_ll_lat = kNcclBaseLatencyRingLlUs * us + intra_steps * a_up * kNcclRingLlStepNvlink * ll_intra +
                             inter_steps * a_out * kNcclRingLlStepNet;
  const double ll_share = (all_reduce || g.nodes > 1) ? kNcclRingLlBwShareAllReduce : kNcclRingLlBwShareIntra;
  consider(ring_ll_lat + ring_bw_s / ll_share, CollectiveAlgorithm::ring_ll);
  if (all_reduce) {
    // Tree (all-reduce only): a chain inside the node, a double binary tree across nodes; algBw = 0.45 x busBw of
    // the ring's graph, i.e. the ring's time x n / (2(n-1)) / 0.45, corrected for medium sizes.
    const double tree_bw_s = ring_bw_s * (n / (2.0 * (n - 1.0))) / (kNcclTreeBusBwShare * kNcclTreeAlgBwPerBusBw);
    const int log_nodes = floor_log2(k);
    const int size_class = floor_log2(bytes / 64.0);
    const double corr_simple = size_class < 22 ? kTreeCorrectionSimple[size_class] : 1.0;
    const double corr_ll = size_class < 22 ? kTreeCorrectionLl[size_class] : 1.0;
    const double tree_simple_lat =
        kNcclBaseLatencyTreeSimpleUs * us +
        2.0 * ((G - 1.0) * a_up * kNcclTreeSimpleStepNvlink + log_nodes * a_out * kNcclTreeSimpleStepNet);
    const double tree_ll_lat =
        kNcclBaseLatencyTreeLlUs * us +
        2.0 * ((G - 1.0) * a_up * kNcclTreeLlStepNvlink * ll_intra + log_nodes * a_out * kNcclTreeLlStepNet);
    consider(tree_simple_lat + tree_bw_s / corr_simple, CollectiveAlgorithm::tree);
    consider(tree_ll_lat + tree_bw_s / (kNcclTreeLlBwShare * corr_ll), CollectiveAlgorithm::tree_ll);
  }
  return best;
}

}  // namespace shardmeter::model
