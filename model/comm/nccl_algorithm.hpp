#pragma once
// NCCL's collective algorithms as its tuning model costs them (docs/model.md §3.5): ring and tree, each with the
// Simple and LL protocols, latency terms that grow with the ranks and nodes a collective spans, a bandwidth per
// algorithm and protocol, and NCCL's choice of the fastest by message size. With a measured network profile on the
// island the measured curve replaces all of it (§3.6).
#include "model/comm/collectives.hpp"
#include "model/spec/enums.hpp"
#include "model/comm/network_profile.hpp"

namespace shardmeter::model {

struct CollectiveCost {
  double time_s = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::none;
  bool extrapolated = false;   // a measured profile extended past its node counts
};

// NCCL's per-algorithm/protocol constants, NVIDIA/nccl@01afd20:src/graph/tuning.cc (docs/model.md §3.5), in µs.
// baseLat {Tree, Ring} x {LL, Simple}:
inline constexpr double kNcclBaseLatencyRingLlUs = 3.6;
inline constexpr double kNcclBaseLatencyRingSimpleUs = 8.4;
inline constexpr double kNcclBaseLatencyTreeLlUs = 4.4;
inline constexpr double kNcclBaseLatencyTreeSimpleUs = 0.0;
// hwLat per step, NVLink and network, as ratios to the ring/Simple step that a link's `latency_us` stands for:
inline constexpr double kNcclRingLlStepNvlink = 0.47 / 3.4;
inline constexpr double kNcclRingLlStepNet = 2.7 / 9.6;
inline constexpr double kNcclTreeSimpleStepNvlink = 28.0 / 3.4;
inline constexpr double kNcclTreeSimpleStepNet = 50.0 / 9.6;
inline constexpr double kNcclTreeLlStepNvlink = 0.52 / 3.4;
inline constexpr double kNcclTreeLlStepNet = 5.0 / 9.6;
inline constexpr double kNcclLlIntraMultiNode = 1.8;     // LL intra-node step latency x 1.8 once nodes > 1
// ring/Simple all-reduce latency across nodes, large sizes: x1.4 from compute capability 8.0 (A100, H100, B200), x1.9
// below (NVIDIA/nccl@v2.21.5-1:src/graph/tuning.cc, ncclTopoGetAlgoTime); capped (docs/model.md §3.5).
inline constexpr double kNcclRingPlateau = 1.4;
inline constexpr double kNcclTreeBusBwShare = 0.9;       // tree busBw = 0.9 x the graph's
inline constexpr double kNcclTreeAlgBwPerBusBw = 0.5;    // tree algBw = busBw / 2
inline constexpr double kNcclTreeLlBwShare = 1.0 / 3.8;  // LL tree bandwidth
inline constexpr double kNcclRingLlBwShareAllReduce = 1.0 / 4.0;  // LL ring: all-reduce, or across nodes
inline constexpr double kNcclRingLlBwShareIntra = 1.0 / 3.0;      // LL ring: all-gather/reduce-scatter in a node

// The cost NCCL's tuning model gives `op` (all_reduce, all_gather or reduce_scatter) of `bytes` (the full array)
// over `group`, with the fastest algorithm and protocol; a measured profile on `links` replaces it.
CollectiveCost nccl_collective(NetworkOp op, double bytes, GroupPlacement group, const GroupLinks& links) noexcept;

}  // namespace shardmeter::model
