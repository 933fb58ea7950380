#pragma once
// One island running its share of an optimizer step: the pipeline schedule over micro-batches, the
// data-parallel collectives inside the island, the optimizer update, and peak memory.
#include "model/spec/estimate.hpp"
#include "model/parallel/layout.hpp"
#include "model/kernels/parameters.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

// Traffic of a synchronous job that crosses the WAN, as seen by one island (model/step/sync_islands.cpp fills it).
struct WanTraffic {
  double per_step_s = 0;           // gradient synchronisation across islands, once per step (overlappable)
  double per_microbatch_s = 0;     // FSDP gathers/reductions whose shard group spans islands
  double p2p_per_microbatch_s = 0; // pipeline activations/gradients crossing an island boundary
  int stages_here = 0;             // pipeline stages per replica in this island (0 = plan.pp)
};

struct IslandStep {
  IslandLayout layout;
  int microbatches = 0;            // per model replica per step
  TimeBreakdown time;              // this island's step, standalone (no WAN, no waiting)
  MemoryBreakdown memory;          // the fullest stage
  double memory_bytes = 0;
  double capacity_bytes = 0;
  bool fits = true;
  double backward_window_s = 0;    // backward compute of the last micro-batch: hides overlapped grad reduction
  double grad_bytes_per_gpu = 0;   // gradient bytes one GPU contributes to the DP reduction
  double params_per_gpu = 0;       // parameters held by one GPU of the largest stage (before ZeRO sharding)
  double stage_microbatch_s = 0;   // slowest stage, one micro-batch (forward + backward)
  // The step is affine in the micro-batch count: fixed_s + microbatches * stage_microbatch_s (balancing uses it).
  double fixed_s = 0;
  bool fp8_casts_outweigh_gemms = false;  // fp8: casts + amax cost more than the GEMMs save against bf16 (§2.2)
  CollectiveAlgorithms collectives{};   // what the TP, CP and DP collectives were charged with (docs/model.md §3.5)
  bool network_extrapolated = false;  // a group spans node counts the island's network profile never measured
};

// `sequences_per_replica`: sequences each model replica of this island processes per optimizer step.
IslandStep island_step(const Scenario& scenario, const IslandSpec& island, const ParameterCounts& params,
                       double sequences_per_replica, const WanTraffic& wan = {}) noexcept;

}  // namespace shardmeter::model
