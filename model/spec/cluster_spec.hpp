#pragma once
// Islands of GPUs on a fast fabric, and the WAN links between them.
#include <array>
#include <cstdint>

#include "model/spec/enums.hpp"
#include "model/spec/hardware_spec.hpp"

namespace shardmeter::model {

inline constexpr int kMaxIslands = 8;       // distinct island entries in a scenario (each may repeat `count` times)
inline constexpr int kMaxLinkOverrides = 16;

struct NetworkProfile;  // model/comm/network_profile.hpp

// Nodes under one leaf switch when `fabric_leaf_nodes` is 0 (docs/model.md §3.5): a DGX SuperPOD scalable unit
// (rail-optimised), a rack of four 8-NIC nodes on one 64-port leaf (top of rack, assumed).
inline constexpr int kRailOptimizedLeafNodes = 32;
inline constexpr int kTopOfRackLeafNodes = 4;

struct IslandSpec {
  FixedName name;
  GpuSpec gpu;
  int gpus = 0;                 // GPUs in one island of this entry
  int gpus_per_node = 8;
  int count = 1;                // identical islands described by this entry
  LinkSpec node_network;        // scale-out: bytes_per_s is the whole node's injection bandwidth
  double price_usd_per_gpu_hour = 0;
  bool spot = false;                         // billed at the spot price, exposed to preemption
  double preemptions_per_gpu_hour = 0;       // spot only
  // Scale-out fabric behind node_network (docs/model.md §3.5).
  ScaleoutTopology fabric_topology = ScaleoutTopology::rail_optimized;
  int fabric_leaf_nodes = 0;                 // nodes under one leaf switch; 0 = by topology
  double fabric_oversubscription = 1;        // leaf downlink : uplink bandwidth
  double fabric_hop_latency_s = 0;           // one switch hop
  // Measured network (docs/model.md §3.6): owned by the process-wide profile store (src/scenario/network_profiles),
  // immutable, never freed; nullptr = the modelled network.
  const NetworkProfile* network_profile = nullptr;

  int leaf_nodes() const {
    if (fabric_leaf_nodes > 0) return fabric_leaf_nodes;
    return fabric_topology == ScaleoutTopology::rail_optimized ? kRailOptimizedLeafNodes : kTopOfRackLeafNodes;
  }

  int nodes() const { return gpus_per_node > 0 ? gpus / gpus_per_node : 0; }
  int total_gpus() const { return gpus * count; }
  // Per-GPU share of the node's scale-out bandwidth when every GPU of the node communicates at once.
  double nic_bytes_per_s_per_gpu() const {
    return node_network.achievable_bytes_per_s() / (gpus_per_node > 0 ? gpus_per_node : 1);
  }
};

struct WanLink {
  double bytes_per_s = 0;        // island-to-island bandwidth (aggregate of the island's gateway)
  double efficiency = 0.7;       // achievable fraction with many TCP streams (assumed, docs/model.md §11.4)
  double latency_s = 0;          // one-way latency (RTT / 2)
  double egress_usd_per_byte = 0;
  // Measured link (docs/model.md §8.7): a calibrate-network profile whose node counts are islands on the ring; owned
  // by the process-wide profile store like an island's.
  const NetworkProfile* profile = nullptr;

  double achievable_bytes_per_s() const { return bytes_per_s * efficiency; }
};

struct LinkOverride {
  int from = 0;   // island entry index
  int to = 0;
  WanLink link;
};

struct ClusterSpec {
  std::array<IslandSpec, kMaxIslands> islands{};
  int island_entries = 0;
  WanLink wan;                                   // default between every pair of islands
  bool has_wan = false;                          // a `cluster.wan` block was given
  std::array<LinkOverride, kMaxLinkOverrides> links{};
  int link_overrides = 0;

  // The link between island entries a and b (symmetric); the default WAN unless overridden.
  const WanLink& link(int a, int b) const {
    for (int i = 0; i < link_overrides; ++i) {
      const LinkOverride& o = links[static_cast<std::size_t>(i)];
      if ((o.from == a && o.to == b) || (o.from == b && o.to == a)) return o.link;
    }
    return wan;
  }
  // One entry (nearly every scenario) is the loop's single term without the loop (the same value; the estimate asks
  // for these a dozen times).
  int total_islands() const {
    if (island_entries == 1) return islands[0].count;
    int n = 0;
    for (int i = 0; i < island_entries; ++i) n += islands[static_cast<std::size_t>(i)].count;
    return n;
  }
  std::int64_t total_gpus() const {
    if (island_entries == 1) return islands[0].total_gpus();
    std::int64_t n = 0;
    for (int i = 0; i < island_entries; ++i) n += islands[static_cast<std::size_t>(i)].total_gpus();
    return n;
  }
};

}  // namespace shardmeter::model
