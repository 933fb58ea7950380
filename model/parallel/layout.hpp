#pragma once
// Where each parallel group's ranks sit inside one island, following Megatron-LM's rank order
// (tensor innermost, then context, then data, then pipeline outermost).
#include <algorithm>

#include "model/spec/cluster_spec.hpp"
#include "model/comm/collectives.hpp"
#include "model/spec/estimate.hpp"
#include "model/spec/plan_spec.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

struct IslandLayout {
  int tp = 1, pp = 1, cp = 1;
  int dp = 1;                 // model replicas inside this island
  int dp_shard = 1;           // ranks a ZeRO/FSDP shard group spans (dp for zero/fsdp, the HSDP group for hsdp, 1
                              // without sharding)
  int dp_replicate = 1;       // dp / dp_shard
  // Context parallelism splits each sequence, not the parameters: the cp ranks of a replica hold the same
  // parameters, so gradients reduce and ZeRO/FSDP state shards over dp x cp ranks (Megatron-Core's data-parallel
  // group with context parallel, torchtitan's dp_shard_cp mesh; docs/model.md §6.1, §7.1).
  int dp_cp = 1;              // ranks that reduce the same gradients: dp x cp
  int state_shards = 1;       // ranks a ZeRO/FSDP shard of the model states spans: dp_shard x cp (1 without
                              // sharding)
  int domain_gpus = 8;        // GPUs sharing the scale-up fabric (node, or NVLink domain such as NVL72)
  bool fp8_transpose_free = false;  // the GPU runs fp8 GEMMs without transposed copies (Blackwell; §7.14)
  GroupPlacement tp_group, cp_group, dp_group, shard_group, replicate_group;
  GroupPlacement dp_cp_group;      // the dp x cp ranks, tp apart: DDP / ZeRO-1/2 gradient reduction
  bool pp_crosses_domain = true;   // neighbouring pipeline stages talk over scale-out
  // The expert layers' folding of the same GPUs per stage (Megatron-Core parallel folding, docs/model.md §15.4):
  // expert-TP innermost, then expert-parallel, then expert-data-parallel. EP groups sit inside the scale-up domain
  // when ETP x EP fits in it.
  int ep = 1, etp = 1;
  int edp = 1;                // GPUs per stage / (ep x etp)
  GroupPlacement ep_group, etp_group, edp_group;
  GroupLinks links;
};

// HSDP's shard group in one island: `gpus` per group (plan.shard_group, or one node when it is 0) and the
// data-parallel ranks it spans, gpus / (tp x cp) (before clamping to the island's data-parallel degree); the
// group's state shards are those ranks times cp.
// Inline: check_consistency runs it for every HSDP candidate the search looks at.
struct HsdpGroup {
  int gpus = 0;
  int ranks = 0;
};
inline HsdpGroup hsdp_group(const IslandSpec& island, const PlanSpec& plan) noexcept {
  const int gpus = plan.shard_group > 0 ? plan.shard_group : island.gpus_per_node;
  return HsdpGroup{gpus, gpus / std::max(1, plan.tp * plan.cp)};
}

// A group of `size` ranks whose members are `stride` ranks apart, in domains of `domain` GPUs.
GroupPlacement place_group(int size, int stride, int domain) noexcept;

// `stages_here`: pipeline stages this island hosts per replica (plan.pp, or pp / islands when the pipeline
// spans islands); 0 means plan.pp.
IslandLayout make_layout(const IslandSpec& island, const PlanSpec& plan, int stages_here = 0) noexcept;

// The data-parallel mesh of one training job, as a framework is launched with it: the replicas that reduce gradients
// every step (synchronous: over every island; DiLoCo: inside one island of entry 0, each island training its own copy
// between outer steps), split into shard groups (zero1/zero2/fsdp: all replicas; hsdp: `first_island`'s shard group;
// none: 1) and replicas of them, and the job's sequences / (micro_batch x data_parallel) micro-batches per replica.
// `first_island`: the layout of island entry 0.
DataParallelDegrees job_degrees(const Scenario& scenario, const IslandLayout& first_island) noexcept;
// The same with the data-parallel degree given (the job step's, which counted it already).
DataParallelDegrees job_degrees(const Scenario& scenario, const IslandLayout& first_island, int data_parallel) noexcept;

}  // namespace shardmeter::model
