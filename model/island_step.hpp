#pragma once
// One island running its share of an optimizer step: the pipeline schedule over micro-batches, the
// data-parallel collectives inside the island, the optimizer update, and peak memory.
#include "model/estimate.hpp"
#include "model/layout.hpp"
#include "model/parameters.hpp"
#include "model/scenario.hpp"

namespace shardmeter::model {

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
};

// `sequences_per_replica`: sequences each model replica of this island processes per optimizer step.
IslandStep island_step(const Scenario& scenario, const IslandSpec& island, const ParameterCounts& params,
                       double sequences_per_replica) noexcept;

}  // namespace shardmeter::model
