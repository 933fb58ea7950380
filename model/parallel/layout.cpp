#include "model/parallel/layout.hpp"

#include <algorithm>
#include <cstdint>

#include "model/parallel/consistency.hpp"
#include "model/parallel/fp8_memory.hpp"

namespace shardmeter::model {

GroupPlacement place_group(int size, int stride, int domain) noexcept {
  GroupPlacement g;
  if (size <= 1) return g;
  if (stride >= domain) {
    g.per_node = 1;
    g.nodes = size;
    return g;
  }
  g.per_node = std::max(1, std::min(size, domain / std::max(1, stride)));
  g.nodes = (size + g.per_node - 1) / g.per_node;
  return g;
}

IslandLayout make_layout(const IslandSpec& island, const PlanSpec& plan, int stages_here) noexcept {
  IslandLayout l;
  l.tp = plan.tp;
  l.pp = plan.pp;
  l.cp = plan.cp;
  const int model_parallel = plan.tp * (stages_here > 0 ? stages_here : plan.pp) * plan.cp;
  l.dp = model_parallel > 0 ? std::max(1, island.gpus / model_parallel) : 1;
  l.domain_gpus = std::max(island.gpus_per_node, island.gpu.scaleup_domain_gpus);
  l.domain_gpus = std::min(l.domain_gpus, std::max(1, island.gpus));
  l.fp8_transpose_free = fp8_gemm_transpose_free(island.gpu);  // TE's fp8 weight layouts (docs/model.md §7.14)

  if (plan.sharding == Sharding::hsdp) {
    l.dp_shard = std::clamp(hsdp_group(island, plan).ranks, 1, l.dp);
  } else {
    l.dp_shard = plan.sharding == Sharding::none ? 1 : l.dp;
  }
  l.dp_replicate = std::max(1, l.dp / l.dp_shard);
  // CP ranks hold the same parameters: gradients reduce over dp x cp, states shard over dp_shard x cp
  // (Megatron-Core get_data_parallel_group(with_context_parallel=True); torchtitan dp_shard_cp; §6.1, §7.1).
  l.dp_cp = l.dp * plan.cp;
  l.state_shards = plan.sharding == Sharding::none ? 1 : l.dp_shard * plan.cp;

  const int tp_cp = plan.tp * plan.cp;
  l.tp_group = place_group(plan.tp, 1, l.domain_gpus);
  l.cp_group = place_group(plan.cp, plan.tp, l.domain_gpus);
  l.dp_group = place_group(l.dp, tp_cp, l.domain_gpus);
  // Rank order tp, cp, dp: the dp x cp ranks of one TP rank are tp apart, the cp ranks innermost.
  l.dp_cp_group = place_group(l.dp_cp, plan.tp, l.domain_gpus);
  l.shard_group = place_group(l.dp_shard * plan.cp, plan.tp, l.domain_gpus);
  l.replicate_group = place_group(l.dp_replicate, tp_cp * l.dp_shard, l.domain_gpus);
  l.pp_crosses_domain = tp_cp * l.dp >= l.domain_gpus;
  l.ep = plan.ep;
  l.etp = plan.etp;
  l.edp = std::max(1, model_parallel > 0 ? tp_cp * l.dp / std::max(1, plan.ep * plan.etp) : 1);
  l.etp_group = place_group(plan.etp, 1, l.domain_gpus);
  l.ep_group = place_group(plan.ep, plan.etp, l.domain_gpus);
  l.edp_group = place_group(l.edp, plan.ep * plan.etp, l.domain_gpus);

  l.links.scaleup_bytes_per_s = island.gpu.scaleup.achievable_bytes_per_s();
  l.links.scaleup_latency_s = island.gpu.scaleup.latency_s;
  l.links.scaleout_bytes_per_s = island.nic_bytes_per_s_per_gpu();
  l.links.scaleout_latency_s = island.node_network.latency_s;
  l.links.leaf_nodes = island.leaf_nodes();
  l.links.oversubscription = island.fabric_oversubscription;
  l.links.hop_latency_s = island.fabric_hop_latency_s;
  l.links.profile = island.network_profile;
  return l;
}

DataParallelDegrees job_degrees(const Scenario& s, const IslandLayout& first_island) noexcept {
  const bool diloco = s.plan.sync == SyncMode::diloco;
  return job_degrees(s, first_island, diloco ? island_data_parallel(s, 0) : total_data_parallel(s));
}

DataParallelDegrees job_degrees(const Scenario& s, const IslandLayout& first_island, int data_parallel) noexcept {
  DataParallelDegrees d;
  const bool diloco = s.plan.sync == SyncMode::diloco;
  d.data_parallel = data_parallel;
  switch (s.plan.sharding) {
    case Sharding::none: d.dp_shard = 1; break;
    case Sharding::hsdp: d.dp_shard = first_island.dp_shard; break;
    case Sharding::zero1:
    case Sharding::zero2:
    case Sharding::fsdp: d.dp_shard = d.data_parallel; break;
  }
  d.dp_replicate = std::max(1, d.data_parallel / std::max(1, d.dp_shard));
  const std::int64_t sequences =
      diloco ? s.training.global_batch / std::max(1, s.cluster.total_islands()) : s.training.global_batch;
  const std::int64_t per_microbatch = std::int64_t{s.training.micro_batch} * std::max(1, d.data_parallel);
  d.microbatches = per_microbatch > 0 ? static_cast<int>(sequences / per_microbatch) : 0;
  return d;
}

}  // namespace shardmeter::model
