#include <catch2/catch.hpp>

#include "model/comm/collectives.hpp"

using namespace shardmeter::model;

TEST_CASE("Ring collectives follow the alpha-beta model (Thakur et al. 2005)") {
  // 1 GB over 8 ranks at 100 GB/s, 10 us per hop.
  CHECK(ring_all_reduce_s(1e9, 8, 100e9, 10e-6) == Approx(2 * 7 * 10e-6 + 2 * 7.0 / 8 * 1e9 / 100e9));
  CHECK(ring_all_gather_s(1e9, 8, 100e9, 10e-6) == Approx(7 * 10e-6 + 7.0 / 8 * 1e9 / 100e9));
  CHECK(ring_reduce_scatter_s(1e9, 8, 100e9, 0) == Approx(8.75e-3));
  CHECK(ring_all_reduce_s(1e9, 1, 100e9, 10e-6) == 0.0);
  CHECK(p2p_s(1e6, 1e9, 1e-6) == Approx(1e-3 + 1e-6));
}

TEST_CASE("Hierarchical all-reduce: intra-node RS + AG, inter-node all-reduce of the 1/G shard (docs/model.md §3.2)") {
  const GroupLinks links{240e9, 0, 20e9, 0};  // NVLink 240 GB/s; 20 GB/s of NIC per GPU; no per-step latency
  const double s = 8e9;
  // NCCL's ring/Simple base latency, 8.4 µs, and x1.4 for a large all-reduce across nodes (NCCL 2.21, compute
  // capability >= 8.0), below its cap of 8.4 + 8.4 µs here (docs/model.md §3.5): 11.76 µs.
  const double base = 8.4e-6, across = 1.4 * 8.4e-6;
  // 4 nodes x 8 GPUs: 2 * 7/8 * S / 240e9 + 2 * 3/4 * (S/8) / 20e9
  CHECK(hierarchical_all_reduce_s(s, GroupPlacement{8, 4}, links) ==
        Approx(2 * 7.0 / 8 * s / 240e9 + 2 * 3.0 / 4 * (s / 8) / 20e9 + across));
  // One node: NVLink only, equal to a ring all-reduce.
  CHECK(hierarchical_all_reduce_s(s, GroupPlacement{8, 1}, links) ==
        Approx(ring_all_reduce_s(s, 8, 240e9, 0) + base));
  // One rank per node: a flat ring over the NICs.
  CHECK(hierarchical_all_reduce_s(s, GroupPlacement{1, 16}, links) ==
        Approx(ring_all_reduce_s(s, 16, 20e9, 0) + across));
  // All-gather is half the all-reduce's bandwidth term.
  CHECK(hierarchical_all_gather_s(s, GroupPlacement{8, 4}, links) - base ==
        Approx((hierarchical_all_reduce_s(s, GroupPlacement{8, 4}, links) - across) / 2));
}

TEST_CASE("More bandwidth is never slower for any collective") {
  for (double bw : {1e9, 10e9, 100e9}) {
    const GroupLinks slow{bw, 1e-6, bw / 10, 5e-6};
    const GroupLinks fast{2 * bw, 1e-6, bw / 5, 5e-6};
    for (GroupPlacement g : {GroupPlacement{8, 1}, GroupPlacement{4, 3}, GroupPlacement{1, 64}}) {
      CHECK(hierarchical_all_reduce_s(1e8, g, fast) <= hierarchical_all_reduce_s(1e8, g, slow));
      CHECK(hierarchical_all_gather_s(1e8, g, fast) <= hierarchical_all_gather_s(1e8, g, slow));
    }
  }
}
