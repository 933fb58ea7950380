#pragma once
// Alpha-beta cost of the collectives training uses, flat and hierarchical.
//
// Ring algorithms, n ranks, payload S bytes (the full, unsharded array), link bandwidth W, latency alpha
// (Thakur, Rabenseifner & Gropp 2005, IJHPCA §4; nccl-tests doc/PERFORMANCE.md bus-bandwidth factors):
//   all-gather / reduce-scatter: (n-1)*alpha + (n-1)/n * S / W
//   all-reduce:                2*(n-1)*alpha + 2*(n-1)/n * S / W
#include "model/spec/hardware_spec.hpp"

namespace shardmeter::model {

struct NetworkProfile;  // model/comm/network_profile.hpp

double ring_all_gather_s(double bytes, int ranks, double bytes_per_s, double latency_s) noexcept;
double ring_reduce_scatter_s(double bytes, int ranks, double bytes_per_s, double latency_s) noexcept;
double ring_all_reduce_s(double bytes, int ranks, double bytes_per_s, double latency_s) noexcept;
// One point-to-point message.
double p2p_s(double bytes, double bytes_per_s, double latency_s) noexcept;

// Where the ranks of one communication group sit: `per_node` ranks share a node's scale-up fabric and
// `nodes` nodes are joined by the scale-out network.
struct GroupPlacement {
  int per_node = 1;
  int nodes = 1;
};

// Links a group uses: scale-up inside a node, and each GPU's share of the node's scale-out bandwidth.
struct GroupLinks {
  double scaleup_bytes_per_s = 0;
  double scaleup_latency_s = 0;
  double scaleout_bytes_per_s = 0;   // per GPU
  double scaleout_latency_s = 0;
  // The scale-out fabric (docs/model.md §3.5): nodes under one leaf switch (0: one leaf for all), the leaf's
  // oversubscription, and the latency of one switch hop.
  int leaf_nodes = 0;
  double oversubscription = 1;
  double hop_latency_s = 0;
  const NetworkProfile* profile = nullptr;   // measured network of the island (§3.6), or none
};

// Two-level collectives (docs/model.md §3.2, ml-engineering derivation): reduce-scatter inside the node over
// scale-up, the 1/per_node shard across nodes over scale-out, all-gather inside the node. The stages run
// one after the other. With one rank per node the intra-node stages vanish; with one node, the inter-node one.
// Latency, and ring or tree, as NCCL's tuning model chooses (§3.5); a measured profile replaces all of it (§3.6):
// these are nccl_collective(...).time_s (model/comm/nccl_algorithm.hpp).
double hierarchical_all_reduce_s(double bytes, GroupPlacement group, const GroupLinks& links) noexcept;
double hierarchical_all_gather_s(double bytes, GroupPlacement group, const GroupLinks& links) noexcept;
double hierarchical_reduce_scatter_s(double bytes, GroupPlacement group, const GroupLinks& links) noexcept;

}  // namespace shardmeter::model
