#pragma once
// Where each parallel group's ranks sit inside one island, following Megatron-LM's rank order
// (tensor innermost, then context, then data, then pipeline outermost).
#include "model/cluster_spec.hpp"
#include "model/collectives.hpp"
#include "model/plan_spec.hpp"

namespace shardmeter::model {

struct IslandLayout {
  int tp = 1, pp = 1, cp = 1;
  int dp = 1;                 // model replicas inside this island
  int dp_shard = 1;           // ranks a ZeRO/FSDP shard group spans (dp for zero/fsdp, the HSDP group for hsdp)
  int dp_replicate = 1;       // dp / dp_shard
  int domain_gpus = 8;        // GPUs sharing the scale-up fabric (node, or NVLink domain such as NVL72)
  GroupPlacement tp_group, cp_group, dp_group, shard_group, replicate_group;
  bool pp_crosses_domain = true;   // neighbouring pipeline stages talk over scale-out
  GroupLinks links;
};

// A group of `size` ranks whose members are `stride` ranks apart, in domains of `domain` GPUs.
GroupPlacement place_group(int size, int stride, int domain) noexcept;

// `stages_here`: pipeline stages this island hosts per replica (plan.pp, or pp / islands when the pipeline
// spans islands); 0 means plan.pp.
IslandLayout make_layout(const IslandSpec& island, const PlanSpec& plan, int stages_here = 0) noexcept;

}  // namespace shardmeter::model
