#pragma once
// Why a scenario cannot be evaluated (inconsistent degrees) or cannot run (does not fit). The search counts
// these per reason; src/scenario/scenario_check.cpp turns the inconsistencies into file:line:column messages.
#include <cstdint>

namespace shardmeter::model {

enum class RejectReason : std::uint8_t {
  none,
  // consistency: checked before any estimate (model/parallel/consistency.hpp)
  parallel_degrees_do_not_divide_gpus,   // tp*pp*cp does not divide an island's GPUs
  heads_not_divisible_by_tp,
  kv_heads_not_divisible_by_tp,
  ffn_not_divisible_by_tp,
  layers_not_divisible_by_pipeline,      // more virtual stages (pp * interleave) than effective layers
  pipeline_split_invalid,                // uneven stage counts or embedding/head weights no framework accepts
  seq_not_divisible_by_cp,
  global_batch_not_divisible,            // global_batch % (micro_batch * dp) != 0
  interleave_needs_pipeline,             // interleave > 1 with pp == 1, or micro-batches % pp != 0
  shard_group_invalid,                   // hsdp shard group does not divide the DP degree
  island_not_whole_nodes,                // an island's GPUs are not a whole number of nodes
  pipeline_exceeds_islands,              // pp_across_islands with fewer stages than islands
  heterogeneous_plan_invalid,            // an island cannot host the plan (e.g. pp spans islands of different GPUs)
  diloco_needs_islands,                  // diloco with a single island
  wan_link_missing,                      // several islands but no cluster.wan (or link) between them
  experts_not_divisible_by_ep,           // plan.ep does not divide model.experts (or ep/etp > 1 on a dense model)
  expert_folding_does_not_divide_gpus,   // ep*etp does not divide an island's GPUs per pipeline stage
  fp8_not_supported,                     // precision fp8 on a GPU without fp8 tensor cores or a stack without fp8
  // capacity: found by the estimate
  out_of_memory,
  goodput_below_floor,                   // synchronous: restarts and rework leave less than kMinSynchronousGoodput
  // Appended (issue 29), a consistency reason after the capacity ones so the earlier codes keep their values:
  offload_not_supported,                 // host-memory offload a stack refuses, or a GPU without a known host link
  count_,  // number of reasons (keep last)
};

inline constexpr int kRejectReasonCount = static_cast<int>(RejectReason::count_);

}  // namespace shardmeter::model
