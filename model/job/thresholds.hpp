#pragma once
// Hardware thresholds of a plan (the "memory and bandwidth" analysis of Wang et al. 2025, arXiv 2504.03655,
// docs/model.md §12): how much network bandwidth keeps it compute-bound, how many tokens per GPU fit, and how long
// a sequence fits. Each answer comes from model::evaluate, searched by bisection or scan: these are model
// queries, not new formulas.
#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

// A step is "compute-bound" when exposed communication (TP, PP, DP, WAN) is at most this share of it.
inline constexpr double kComputeBoundCommShare = 0.10;

// Scale-out factors the bandwidth search spans, relative to the scenario's node network.
inline constexpr double kMinBandwidthFactor = 1e-6;
inline constexpr double kMaxBandwidthFactor = 1e3;
// The search samples the exposed-communication share on this many points per decade of the factor, then bisects
// the first crossing (issue 31: it no longer trusts one far point to stand for the whole curve).
inline constexpr int kBandwidthPointsPerDecade = 8;

struct BandwidthThreshold {
  bool reachable = false;             // some scale-out bandwidth (up to kMaxBandwidthFactor x) is compute-bound
  bool any_bandwidth = false;         // compute-bound even at kMinBandwidthFactor x: the node network hardly matters
  double factor = 0;                  // threshold / the scenario's node network (every island scaled alike)
  double node_network_bytes_per_s = 0;   // minimum nominal scale-out bandwidth per node (island entry 0)
  double per_gpu_bytes_per_s = 0;     // the same, per GPU (node / gpus_per_node)
  double comm_share_at_current = 0;   // exposed-communication share of the step at the scenario's bandwidth
  double comm_share_floor = 0;        // the lowest share on the searched curve: what no node network removes
  double floor_factor = 0;            // where on the curve that lowest share is
};
// Minimum scale-out (node network) bandwidth at which the step is compute-bound. Only the node network is
// scaled: NVLink and WAN links stay as they are, so TP or WAN communication can make it unreachable.
BandwidthThreshold min_bandwidth_for_compute_bound(const Scenario& scenario,
                                                   double comm_share = kComputeBoundCommShare) noexcept;

struct TokensThreshold {
  int max_micro_batch = 0;            // largest micro-batch that fits (0: not even 1 fits)
  double max_tokens_per_gpu = 0;      // micro-batch x sequence length / cp at that micro-batch
  int min_compute_bound_micro_batch = 0;  // smallest fitting micro-batch that is compute-bound (0: none)
  bool compute_bound_exists = false;  // some fitting micro-batch is compute-bound at the scenario's bandwidth
};
// Varies the micro-batch from 1 to `limit`, keeping the plan's micro-batches per replica per step (the global
// batch scales with the micro-batch, so every divisibility rule of the scenario still holds).
TokensThreshold tokens_per_gpu_thresholds(const Scenario& scenario, int limit = 4096,
                                          double comm_share = kComputeBoundCommShare) noexcept;

// Longest sequence length (a multiple of `granularity`, and of 2 x cp when cp > 1, as context parallelism needs)
// that fits at the scenario's micro-batch and global batch; 0 if none up to `limit`.
int max_sequence_length(const Scenario& scenario, int granularity = 256, int limit = 4 * 1024 * 1024) noexcept;

// Exposed-communication share of a step, Estimate::exposed_comm_fraction; 1 for a scenario that cannot be
// evaluated (inconsistent), so it never counts as compute-bound.
double exposed_comm_share(const Estimate& estimate) noexcept;
double exposed_comm_share(const Scenario& scenario) noexcept;

// The scenario with micro-batch b and the same number of micro-batches per replica per step.
Scenario with_micro_batch(const Scenario& scenario, int micro_batch) noexcept;
// The scenario with every island's node network scaled by `factor`.
Scenario with_bandwidth_factor(const Scenario& scenario, double factor) noexcept;

}  // namespace shardmeter::model
