#include "model/field_offsets.hpp"

#include "model/scenario.hpp"

namespace shardmeter::model {

namespace {

template <typename T>
constexpr ByteRange bytes_at(std::size_t offset) {
  return ByteRange{offset, sizeof(T)};
}

ByteRange island_member(int island, std::size_t member_offset, std::size_t member_size) {
  if (island < 0 || island >= kMaxIslands) return {};
  const std::size_t base = offsetof(Scenario, cluster) + offsetof(ClusterSpec, islands) +
                           static_cast<std::size_t>(island) * sizeof(IslandSpec);
  return ByteRange{base + member_offset, member_size};
}

void add_all_islands(ByteRanges& out, FieldId field) {
  for (int i = 0; i < kMaxIslands; ++i) out.add(field_bytes(field, i));
}

// The rules of check_consistency (model/consistency.cpp) in the order it tests them; each stage adds the fields
// its rules read. A reason's inputs are the union of every stage up to the last one that can return it.
enum class Stage { tp_vs_model, pipeline, context, islands, wan, plan_vs_islands, per_island, batch, all };

Stage last_stage(RejectReason r) {
  switch (r) {
    case RejectReason::heads_not_divisible_by_tp:
    case RejectReason::kv_heads_not_divisible_by_tp:
    case RejectReason::ffn_not_divisible_by_tp: return Stage::tp_vs_model;
    case RejectReason::layers_not_divisible_by_pipeline: return Stage::pipeline;
    case RejectReason::seq_not_divisible_by_cp: return Stage::context;
    case RejectReason::diloco_needs_islands: return Stage::islands;
    case RejectReason::wan_link_missing: return Stage::wan;
    case RejectReason::pipeline_exceeds_islands:
    case RejectReason::heterogeneous_plan_invalid: return Stage::plan_vs_islands;
    case RejectReason::island_not_whole_nodes:
    case RejectReason::parallel_degrees_do_not_divide_gpus:
    case RejectReason::shard_group_invalid: return Stage::per_island;
    case RejectReason::global_batch_not_divisible: return Stage::batch;
    // Returned both right after the pipeline rules and after the batch rule.
    case RejectReason::interleave_needs_pipeline: return Stage::all;
    case RejectReason::none:
    case RejectReason::out_of_memory:
    case RejectReason::count_: break;
  }
  return Stage::all;
}

}  // namespace

ByteRange field_bytes(FieldId field, int island) noexcept {
  switch (field) {
    case FieldId::none: return {};
    case FieldId::model_layers: return bytes_at<int>(offsetof(Scenario, model.layers));
    case FieldId::model_heads: return bytes_at<int>(offsetof(Scenario, model.heads));
    case FieldId::model_kv_heads: return bytes_at<int>(offsetof(Scenario, model.kv_heads));
    case FieldId::model_ffn_hidden: return bytes_at<int>(offsetof(Scenario, model.ffn_hidden));
    case FieldId::model_seq_len: return bytes_at<int>(offsetof(Scenario, model.seq_len));
    case FieldId::training_global_batch:
      return bytes_at<std::int64_t>(offsetof(Scenario, training.global_batch));
    case FieldId::training_micro_batch: return bytes_at<int>(offsetof(Scenario, training.micro_batch));
    case FieldId::island_gpus: return island_member(island, offsetof(IslandSpec, gpus), sizeof(int));
    case FieldId::island_gpus_per_node:
      return island_member(island, offsetof(IslandSpec, gpus_per_node), sizeof(int));
    case FieldId::island_count: return island_member(island, offsetof(IslandSpec, count), sizeof(int));
    case FieldId::cluster_islands: return bytes_at<int>(offsetof(Scenario, cluster.island_entries));
    case FieldId::plan_tp: return bytes_at<int>(offsetof(Scenario, plan.tp));
    case FieldId::plan_pp: return bytes_at<int>(offsetof(Scenario, plan.pp));
    case FieldId::plan_cp: return bytes_at<int>(offsetof(Scenario, plan.cp));
    case FieldId::plan_interleave: return bytes_at<int>(offsetof(Scenario, plan.interleave));
    case FieldId::plan_shard_group: return bytes_at<int>(offsetof(Scenario, plan.shard_group));
    case FieldId::plan_sync: return bytes_at<SyncMode>(offsetof(Scenario, plan.sync));
    case FieldId::plan_pp_across_islands: return bytes_at<bool>(offsetof(Scenario, plan.pp_across_islands));
  }
  return {};
}

ConsistencyInputs consistency_inputs(RejectReason reason) noexcept {
  ConsistencyInputs in;
  if (reason == RejectReason::none || reason == RejectReason::out_of_memory || reason == RejectReason::count_) {
    in.unbounded = true;
    return in;
  }
  const Stage last = last_stage(reason);
  ByteRanges& r = in.ranges;
  auto reaches = [last](Stage s) { return static_cast<int>(s) <= static_cast<int>(last); };
  // heads, kv_heads and ffn_hidden must be divisible by tp.
  r.add(field_bytes(FieldId::plan_tp, -1));
  r.add(field_bytes(FieldId::model_heads, -1));
  r.add(field_bytes(FieldId::model_kv_heads, -1));
  r.add(field_bytes(FieldId::model_ffn_hidden, -1));
  if (reaches(Stage::pipeline)) {  // layers % (pp * interleave); interleave needs pp > 1
    r.add(field_bytes(FieldId::model_layers, -1));
    r.add(field_bytes(FieldId::plan_pp, -1));
    r.add(field_bytes(FieldId::plan_interleave, -1));
  }
  if (reaches(Stage::context)) {  // seq_len % (2 cp)
    r.add(field_bytes(FieldId::plan_cp, -1));
    r.add(field_bytes(FieldId::model_seq_len, -1));
  }
  if (reaches(Stage::islands)) {  // diloco needs >= 2 islands: island_entries and every entry's count
    r.add(field_bytes(FieldId::plan_sync, -1));
    r.add(field_bytes(FieldId::cluster_islands, -1));
    add_all_islands(r, FieldId::island_count);
  }
  if (reaches(Stage::wan)) {  // several islands need a WAN link between every pair: the default and overrides
    r.add(bytes_at<WanLink>(offsetof(Scenario, cluster.wan)));
    r.add(ByteRange{offsetof(Scenario, cluster.links), sizeof(ClusterSpec::links)});
    r.add(bytes_at<int>(offsetof(Scenario, cluster.link_overrides)));
  }
  if (reaches(Stage::plan_vs_islands)) r.add(field_bytes(FieldId::plan_pp_across_islands, -1));
  if (reaches(Stage::per_island)) {  // whole nodes, tp*cp*pp | gpus, hsdp shard group
    add_all_islands(r, FieldId::island_gpus);
    add_all_islands(r, FieldId::island_gpus_per_node);
    r.add(bytes_at<Sharding>(offsetof(Scenario, plan.sharding)));
    r.add(field_bytes(FieldId::plan_shard_group, -1));
  }
  if (reaches(Stage::batch)) {  // global_batch % (micro_batch * dp); the quantum depends on batch_split
    r.add(field_bytes(FieldId::training_global_batch, -1));
    r.add(field_bytes(FieldId::training_micro_batch, -1));
    r.add(bytes_at<BatchSplit>(offsetof(Scenario, plan.batch_split)));
  }
  return in;
}

}  // namespace shardmeter::model
