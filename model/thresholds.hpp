#pragma once
// Hardware thresholds of a plan (the "memory and bandwidth" analysis of Wang et al. 2025, arXiv 2504.03655,
// MODEL_NOTES §5): how much network bandwidth keeps it compute-bound, how many tokens per GPU fit, and how long
// a sequence fits. Each answer comes from model::evaluate, searched by bisection: these are model queries,
// not new formulas.
#include "model/scenario.hpp"

namespace shardmeter::model {

// A step is "compute-bound" when exposed communication (TP, PP, DP, WAN) is at most this share of it.
inline constexpr double kComputeBoundCommShare = 0.10;

struct BandwidthThreshold {
  bool reachable = false;             // some bandwidth (up to 1000x the island's) makes the plan compute-bound
  double node_network_bytes_per_s = 0;   // minimum scale-out bandwidth per node
  double per_gpu_bytes_per_s = 0;     // the same, per GPU
  double comm_share_at_current = 0;   // exposed-communication share of the step at the island's bandwidth
};
// Minimum scale-out bandwidth (every island scaled by the same factor) for a compute-bound step.
BandwidthThreshold min_bandwidth_for_compute_bound(const Scenario& scenario, double comm_share = kComputeBoundCommShare) noexcept;

struct TokensThreshold {
  int max_micro_batch = 0;            // largest micro-batch that fits (0: not even 1 fits)
  double max_tokens_per_gpu = 0;      // micro-batch x sequence length / cp at that micro-batch
  int min_compute_bound_micro_batch = 0;  // smallest fitting micro-batch that is compute-bound (0: none)
  bool compute_bound_exists = false;  // a fitting micro-batch is compute-bound at the current bandwidth
};
// Varies the micro-batch (one micro-batch per replica per step, as the global batch permits) up to `limit`.
TokensThreshold tokens_per_gpu_thresholds(const Scenario& scenario, int limit = 4096,
                                          double comm_share = kComputeBoundCommShare) noexcept;

// Longest sequence length (a multiple of `granularity`, at the scenario's micro-batch) that fits; 0 if none.
int max_sequence_length(const Scenario& scenario, int granularity = 256, int limit = 4 * 1024 * 1024) noexcept;

// Exposed-communication share of a step: (tp + pp + dp + wan) / step.
double exposed_comm_share(const Scenario& scenario) noexcept;

}  // namespace shardmeter::model
