#include "model/consistency.hpp"

#include <algorithm>

#include "model/layout.hpp"

namespace shardmeter::model {

namespace {

Violation violation(RejectReason reason, FieldId field, double value, FieldId other = FieldId::none,
                    double other_value = 0, int island = -1) {
  return Violation{reason, field, value, other, other_value, island};
}

Violation check_island(const Scenario& s, int i) {
  const IslandSpec& island = s.cluster.islands[static_cast<std::size_t>(i)];
  const PlanSpec& plan = s.plan;
  if (island.gpus >= island.gpus_per_node && island.gpus % island.gpus_per_node != 0)
    return violation(RejectReason::island_not_whole_nodes, FieldId::island_gpus_per_node, island.gpus_per_node,
                     FieldId::island_gpus, island.gpus, i);
  // tp*pp*cp must divide the island; blame the first factor that breaks divisibility.
  const int pp_here = stages_per_island(s);
  if (island.gpus % plan.tp != 0)
    return violation(RejectReason::parallel_degrees_do_not_divide_gpus, FieldId::plan_tp, plan.tp,
                     FieldId::island_gpus, island.gpus, i);
  // Products in 64 bits: the search may combine large degrees.
  const std::int64_t tp_cp64 = std::int64_t{plan.tp} * plan.cp;
  if (island.gpus % tp_cp64 != 0)
    return violation(RejectReason::parallel_degrees_do_not_divide_gpus, FieldId::plan_cp, plan.cp,
                     FieldId::island_gpus, island.gpus, i);
  if (island.gpus % (tp_cp64 * pp_here) != 0)
    return violation(RejectReason::parallel_degrees_do_not_divide_gpus, FieldId::plan_pp, plan.pp,
                     FieldId::island_gpus, island.gpus, i);
  if (plan.sharding == Sharding::hsdp) {
    // A shard group is a whole number of TP x CP groups, and its data-parallel ranks divide the island's.
    const HsdpGroup group = hsdp_group(island, plan);
    const int dp = island_data_parallel(s, i);
    if (group.gpus % (plan.tp * plan.cp) != 0 || dp % std::max(group.ranks, 1) != 0 || group.ranks > dp)
      return violation(RejectReason::shard_group_invalid, FieldId::plan_shard_group, group.gpus,
                       FieldId::island_gpus, island.gpus, i);
  }
  return {};
}

}  // namespace

int stages_per_island(const Scenario& s) noexcept {
  if (!s.plan.pp_across_islands) return s.plan.pp;
  const int islands = s.cluster.total_islands();
  return islands > 0 ? s.plan.pp / islands : s.plan.pp;
}

int island_data_parallel(const Scenario& s, int i) noexcept {
  const IslandSpec& island = s.cluster.islands[static_cast<std::size_t>(i)];
  const std::int64_t per_replica = std::int64_t{s.plan.tp} * s.plan.cp * stages_per_island(s);
  return per_replica > 0 ? static_cast<int>(island.gpus / per_replica) : 0;
}

int total_data_parallel(const Scenario& s) noexcept {
  int dp = 0;
  for (int i = 0; i < s.cluster.island_entries; ++i)
    dp += island_data_parallel(s, i) * s.cluster.islands[static_cast<std::size_t>(i)].count;
  // With the pipeline spanning islands, one replica takes a slice of every island.
  if (s.plan.pp_across_islands && s.cluster.total_islands() > 0) dp /= s.cluster.total_islands();
  return dp;
}

Violation check_consistency(const Scenario& s) noexcept {
  const ModelSpec& m = s.model;
  const PlanSpec& plan = s.plan;
  const TrainingSpec& tr = s.training;

  if (m.heads % plan.tp != 0)
    return violation(RejectReason::heads_not_divisible_by_tp, FieldId::plan_tp, plan.tp, FieldId::model_heads, m.heads);
  if (m.kv_heads % plan.tp != 0)
    return violation(RejectReason::kv_heads_not_divisible_by_tp, FieldId::plan_tp, plan.tp, FieldId::model_kv_heads,
                     m.kv_heads);
  if (m.ffn_hidden % plan.tp != 0)
    return violation(RejectReason::ffn_not_divisible_by_tp, FieldId::plan_tp, plan.tp, FieldId::model_ffn_hidden,
                     m.ffn_hidden);
  // Uneven stages are allowed (the fullest takes ceil(L/pp)); the interleaved schedule needs equal chunks, and
  // every stage needs at least one layer.
  if (plan.pp > m.layers || (plan.interleave > 1 && m.layers % (plan.pp * plan.interleave) != 0))
    return violation(RejectReason::layers_not_divisible_by_pipeline,
                     plan.interleave > 1 ? FieldId::plan_interleave : FieldId::plan_pp,
                     plan.interleave > 1 ? plan.interleave : plan.pp, FieldId::model_layers, m.layers);
  // Context parallelism splits each sequence into 2*cp chunks for causal load balance (Megatron-Core CP).
  if (plan.cp > 1 && m.seq_len % (2 * plan.cp) != 0)
    return violation(RejectReason::seq_not_divisible_by_cp, FieldId::plan_cp, plan.cp, FieldId::model_seq_len, m.seq_len);
  if (plan.interleave > 1 && plan.pp == 1)
    return violation(RejectReason::interleave_needs_pipeline, FieldId::plan_interleave, plan.interleave,
                     FieldId::plan_pp, plan.pp);
  if (plan.sync == SyncMode::diloco && s.cluster.total_islands() < 2)
    return violation(RejectReason::diloco_needs_islands, FieldId::plan_sync, 0, FieldId::cluster_islands,
                     s.cluster.total_islands());
  if (s.cluster.total_islands() > 1) {
    for (int a = 0; a < s.cluster.island_entries; ++a)
      for (int b = a; b < s.cluster.island_entries; ++b) {
        const bool pair_exists = a != b || s.cluster.islands[static_cast<std::size_t>(a)].count > 1;
        if (pair_exists && s.cluster.link(a, b).bytes_per_s <= 0)
          return violation(RejectReason::wan_link_missing, FieldId::cluster_islands, s.cluster.total_islands(),
                           FieldId::none, 0, a);
      }
  }
  if (plan.pp_across_islands) {
    const int islands = s.cluster.total_islands();
    if (plan.pp < islands || plan.pp % islands != 0)
      return violation(RejectReason::pipeline_exceeds_islands, FieldId::plan_pp, plan.pp, FieldId::cluster_islands,
                       islands);
    if (plan.sync == SyncMode::diloco)
      return violation(RejectReason::heterogeneous_plan_invalid, FieldId::plan_pp_across_islands, 1,
                       FieldId::plan_sync, 1);
  }

  for (int i = 0; i < s.cluster.island_entries; ++i)
    if (Violation v = check_island(s, i)) return v;

  const int dp = total_data_parallel(s);
  if (plan.sync == SyncMode::diloco) {
    // Each island trains an equal share of the global batch with its own replicas.
    const int islands = s.cluster.total_islands();
    for (int i = 0; i < s.cluster.island_entries; ++i) {
      const std::int64_t quantum = static_cast<std::int64_t>(tr.micro_batch) * island_data_parallel(s, i) * islands;
      if (quantum <= 0 || tr.global_batch % quantum != 0)
        return violation(RejectReason::global_batch_not_divisible, FieldId::training_global_batch,
                         static_cast<double>(tr.global_batch), FieldId::training_micro_batch,
                         static_cast<double>(quantum), i);
    }
  } else {
    const bool equal_split = s.cluster.island_entries == 1 || plan.batch_split == BatchSplit::equal;
    const std::int64_t quantum = static_cast<std::int64_t>(tr.micro_batch) * (equal_split ? dp : 1);
    if (dp <= 0 || tr.global_batch % quantum != 0 ||
        tr.global_batch < static_cast<std::int64_t>(tr.micro_batch) * dp)
      return violation(RejectReason::global_batch_not_divisible, FieldId::training_global_batch,
                       static_cast<double>(tr.global_batch), FieldId::training_micro_batch,
                       static_cast<double>(tr.micro_batch * std::max(dp, 1)));
  }
  if (plan.interleave > 1 && s.cluster.island_entries == 1) {
    const std::int64_t microbatches = tr.global_batch / (static_cast<std::int64_t>(tr.micro_batch) * dp);
    if (microbatches % plan.pp != 0)
      return violation(RejectReason::interleave_needs_pipeline, FieldId::plan_interleave, plan.interleave,
                       FieldId::plan_pp, plan.pp);
  }
  return {};
}

std::string_view describe(RejectReason r) noexcept {
  switch (r) {
    case RejectReason::none: return "is consistent";
    case RejectReason::parallel_degrees_do_not_divide_gpus: return "does not divide";
    case RejectReason::heads_not_divisible_by_tp: return "does not divide";
    case RejectReason::kv_heads_not_divisible_by_tp: return "does not divide";
    case RejectReason::ffn_not_divisible_by_tp: return "does not divide";
    case RejectReason::layers_not_divisible_by_pipeline: return "(times plan.pp) does not divide";
    case RejectReason::seq_not_divisible_by_cp: return "(times 2, for causal load balance) does not divide";
    case RejectReason::global_batch_not_divisible: return "is not a positive multiple of micro_batch x data-parallel degree";
    case RejectReason::interleave_needs_pipeline: return "needs a pipeline whose micro-batch count it divides:";
    case RejectReason::shard_group_invalid: return "is not a whole number of TP x CP groups dividing the data-parallel GPUs of";
    case RejectReason::island_not_whole_nodes: return "does not divide";
    case RejectReason::pipeline_exceeds_islands: return "is not a multiple of the number of islands";
    case RejectReason::heterogeneous_plan_invalid: return "cannot be combined with";
    case RejectReason::diloco_needs_islands: return "= diloco needs at least two islands, but";
    case RejectReason::wan_link_missing: return "needs a cluster.wan link (or cluster.links entry) between islands";
    case RejectReason::out_of_memory: return "does not fit in GPU memory";
    case RejectReason::count_: break;
  }
  return "is invalid";
}

}  // namespace shardmeter::model
