#include <catch2/catch.hpp>

#include "model/comm/nccl_algorithm.hpp"

using namespace shardmeter::model;

// NCCL's tuning model (NVIDIA/nccl@01afd20:src/graph/tuning.cc; docs/model.md §3.5) over links of 300 GB/s and 3 µs
// per NVLink step, 50 GB/s of NIC per GPU and 5 µs per network step.
TEST_CASE("NCCL algorithms: ring for large all-reduces, LL for small ones, latency growing with ranks") {
  const GroupLinks links{300e9, 3e-6, 50e9, 5e-6};
  // 1 GB over one node of 8: ring/Simple, 8.4 µs + 14 steps x 3 µs + 2 x 7/8 x 1e9 / 300e9 = 5.88373 ms.
  const CollectiveCost large = nccl_collective(NetworkOp::all_reduce, 1e9, GroupPlacement{8, 1}, links);
  CHECK(large.algorithm == CollectiveAlgorithm::ring);
  CHECK(large.time_s == Approx(8.4e-6 + 14 * 3e-6 + 2 * 7.0 / 8 * 1e9 / 300e9));
  // 1 KiB over the same node: ring/LL, 3.6 µs + 14 x 3 µs x 0.47/3.4 + 4 x 1792 / 300e9 = 9.42978 µs.
  const CollectiveCost small = nccl_collective(NetworkOp::all_reduce, 1024, GroupPlacement{8, 1}, links);
  CHECK(small.algorithm == CollectiveAlgorithm::ring_ll);
  CHECK(small.time_s == Approx(9.42978e-6).epsilon(1e-5));
  // 1 MB over 64 nodes, one rank each: ring/LL, 3.6 µs + 126 x 5 µs x 2.7/9.6 + 4 x 2 x 63/64 x 1e6 / 50e9
  // = 180.7875 + 157.5 = 338.2875 µs (ring/Simple pays (8.4 + 630) µs + its plateau, capped at 8.4 µs, + 39.375 µs;
  // the trees 401 and 458 µs).
  const CollectiveCost wide = nccl_collective(NetworkOp::all_reduce, 1e6, GroupPlacement{1, 64}, links);
  CHECK(wide.algorithm == CollectiveAlgorithm::ring_ll);
  CHECK(wide.time_s == Approx(338.2875e-6));
  // A tiny all-reduce over 64 nodes of 8: the tree's log2 latency beats the ring's 2 x 511 steps.
  const CollectiveCost tiny = nccl_collective(NetworkOp::all_reduce, 4096, GroupPlacement{8, 64}, links);
  CHECK(tiny.algorithm == CollectiveAlgorithm::tree_ll);
  // One rank: nothing to do.
  CHECK(nccl_collective(NetworkOp::all_reduce, 1e9, GroupPlacement{1, 1}, links).time_s == 0.0);
}

TEST_CASE("The latency of a small collective grows with the ranks it spans") {
  const GroupLinks links{300e9, 3e-6, 50e9, 5e-6};
  double previous = 0;
  for (int nodes : {1, 2, 4, 8, 16, 32, 64}) {
    const double t = nccl_collective(NetworkOp::all_gather, 65536, GroupPlacement{8, nodes}, links).time_s;
    CHECK(t > previous);
    previous = t;
  }
}

TEST_CASE("Fabric: past one leaf the ring pays spine hops and the oversubscription (docs/model.md §3.5)") {
  GroupLinks links{300e9, 3e-6, 50e9, 5e-6};
  links.leaf_nodes = 32;
  links.oversubscription = 2.0;
  links.hop_latency_s = 1e-6;
  // 32 nodes fit one leaf: no oversubscription. All-gather of 8 GB, 8 per node:
  // 7/8 x 8e9 / 300e9 + 31/32 x 1e9 / 50e9 plus 8.4 µs + 224 x 3 µs + 31 x (5 + 1) µs.
  const CollectiveCost in_leaf = nccl_collective(NetworkOp::all_gather, 8e9, GroupPlacement{8, 32}, links);
  CHECK(in_leaf.time_s ==
        Approx(7.0 / 8 * 8e9 / 300e9 + 31.0 / 32 * 1e9 / 50e9 + 8.4e-6 + 224 * 3e-6 + 31 * 6e-6));
  // 64 nodes span two leaves: the scale-out stage at 25 GB/s and 3 hops per step:
  // 7/8 x 8e9 / 300e9 + 63/64 x 1e9 / 25e9 plus 8.4 µs + 448 x 3 µs + 63 x (5 + 3) µs.
  const CollectiveCost spans = nccl_collective(NetworkOp::all_gather, 8e9, GroupPlacement{8, 64}, links);
  CHECK(spans.time_s ==
        Approx(7.0 / 8 * 8e9 / 300e9 + 63.0 / 64 * 1e9 / 25e9 + 8.4e-6 + 448 * 3e-6 + 63 * 8e-6));
}

TEST_CASE("More bandwidth is never slower, whichever algorithm NCCL picks") {
  for (double bytes : {1e3, 1e5, 1e7, 1e9})
    for (GroupPlacement g : {GroupPlacement{8, 1}, GroupPlacement{4, 3}, GroupPlacement{1, 64}, GroupPlacement{8, 16}})
      for (NetworkOp op : {NetworkOp::all_reduce, NetworkOp::all_gather, NetworkOp::reduce_scatter}) {
        const GroupLinks slow{100e9, 3e-6, 10e9, 5e-6};
        const GroupLinks fast{200e9, 3e-6, 20e9, 5e-6};
        CHECK(nccl_collective(op, bytes, g, fast).time_s <= nccl_collective(op, bytes, g, slow).time_s);
      }
}

// NCCL's plateau on a large ring all-reduce across nodes (x1.4 from compute capability 8.0,
// NVIDIA/nccl@v2.21.5-1:src/graph/tuning.cc) is capped at one more base latency (docs/model.md §3.5), so the
// all-reduce never costs more than its reduce-scatter and all-gather halves.
TEST_CASE("NCCL's ring plateau is capped: an all-reduce never costs more than its two halves") {
  const GroupLinks links{300e9, 3e-6, 50e9, 5e-6};
  // 1 GB over 2 nodes of 8 (16 ranks): 1e9 / (16 x 16) >= 64 B, so the plateau applies. Latency 8.4 µs
  // + 30 steps, 2 across nodes: 28 x 3 + 2 x 5 = 94 µs, so 102.4 µs; x1.4 = 143.36 µs, capped at 102.4 + 8.4 = 110.8 µs.
  // Bandwidth: 2 x (7/8 x 1e9 / 300e9 + 1/2 x 1.25e8 / 50e9) = 2 x (2.916667 + 1.25) ms = 8.333333 ms.
  const CollectiveCost ar = nccl_collective(NetworkOp::all_reduce, 1e9, GroupPlacement{8, 2}, links);
  CHECK(ar.algorithm == CollectiveAlgorithm::ring);
  CHECK(ar.time_s == Approx(110.8e-6 + 2 * (7.0 / 8 * 1e9 / 300e9 + 0.5 * 1.25e8 / 50e9)));
  // Each half: 8.4 µs + 14 x 3 + 1 x 5 = 55.4 µs + 4.166667 ms; both: 110.8 µs + 8.333333 ms, the all-reduce's time.
  const double rs = nccl_collective(NetworkOp::reduce_scatter, 1e9, GroupPlacement{8, 2}, links).time_s;
  const double ag = nccl_collective(NetworkOp::all_gather, 1e9, GroupPlacement{8, 2}, links).time_s;
  CHECK(rs + ag == Approx(ar.time_s));
  // Property: across nodes, at every size and placement, AR <= RS + AG (ring/Simple by the cap; LL at the same share
  // across nodes with fewer base latencies; the trees are extra candidates).
  for (double bytes : {1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10})
    for (GroupPlacement g : {GroupPlacement{1, 2}, GroupPlacement{8, 2}, GroupPlacement{4, 3}, GroupPlacement{1, 64},
                             GroupPlacement{8, 16}, GroupPlacement{8, 128}, GroupPlacement{2, 512}})
      for (double out_latency : {1e-6, 5e-6, 20e-6}) {
        const GroupLinks l{300e9, 3e-6, 50e9, out_latency};
        const double all = nccl_collective(NetworkOp::all_reduce, bytes, g, l).time_s;
        const double halves = nccl_collective(NetworkOp::reduce_scatter, bytes, g, l).time_s +
                              nccl_collective(NetworkOp::all_gather, bytes, g, l).time_s;
        INFO("bytes " << bytes << " per node " << g.per_node << " nodes " << g.nodes);
        CHECK(all <= halves * (1 + 1e-12));
      }
}

// The data-parallel cost (model/step/island_step.cpp, dp_cost) prices ZeRO's parameter all-gather as the gradient
// reduce-scatter when both move as many bytes and no profile is measured: that needs NCCL's model to price the two
// alike, bit for bit (docs/model.md §3.5: ring steps and bandwidth per rank are the same; LL's share depends only on
// all-reduce or not), whatever the size, placement and fabric.
TEST_CASE("Without a profile a reduce-scatter and an all-gather of as many bytes cost exactly the same") {
  for (double bytes : {1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10})
    for (GroupPlacement g : {GroupPlacement{2, 1}, GroupPlacement{8, 1}, GroupPlacement{1, 2}, GroupPlacement{8, 2},
                             GroupPlacement{4, 3}, GroupPlacement{1, 64}, GroupPlacement{8, 128}})
      for (int leaf : {0, 4}) {
        GroupLinks l{300e9, 3e-6, 50e9, 5e-6};
        l.leaf_nodes = leaf;
        l.oversubscription = 2;
        l.hop_latency_s = 1e-6;
        const CollectiveCost rs = nccl_collective(NetworkOp::reduce_scatter, bytes, g, l);
        const CollectiveCost ag = nccl_collective(NetworkOp::all_gather, bytes, g, l);
        INFO("bytes " << bytes << " per node " << g.per_node << " nodes " << g.nodes << " leaf " << leaf);
        CHECK(rs.time_s == ag.time_s);
        CHECK(rs.algorithm == ag.algorithm);
      }
}
