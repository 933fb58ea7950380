#include "model/spec/field_id.hpp"

#include <utility>

#include "model/spec/scenario.hpp"

namespace shardmeter::model {

namespace {

struct FieldRow {
  FieldId id;
  std::string_view path;
  ByteRange bytes;     // inside Scenario, or inside IslandSpec for island fields
  bool island = false;
};

// Offset and size come from one member expression, so a row cannot pair a member's offset with another's size.
#define SHARDMETER_FIELD(id, path, member) \
  FieldRow{FieldId::id, path, ByteRange{offsetof(Scenario, member), sizeof(std::declval<Scenario&>().member)}, false}
#define SHARDMETER_ISLAND_FIELD(id, path, member) \
  FieldRow{FieldId::id, path, ByteRange{offsetof(IslandSpec, member), sizeof(std::declval<IslandSpec&>().member)}, true}

constexpr std::array<FieldRow, kFieldIdCount> kFields = {{
    FieldRow{FieldId::none, "", ByteRange{}, false},
    SHARDMETER_FIELD(model_layers, "model.layers", model.layers),
    SHARDMETER_FIELD(model_heads, "model.heads", model.heads),
    SHARDMETER_FIELD(model_kv_heads, "model.kv_heads", model.kv_heads),
    SHARDMETER_FIELD(model_ffn_hidden, "model.ffn_hidden", model.ffn_hidden),
    SHARDMETER_FIELD(model_seq_len, "model.seq_len", model.seq_len),
    SHARDMETER_FIELD(training_global_batch, "training.global_batch", training.global_batch),
    SHARDMETER_FIELD(training_micro_batch, "training.micro_batch", training.micro_batch),
    SHARDMETER_ISLAND_FIELD(island_gpus, "cluster.islands.#.gpus", gpus),
    SHARDMETER_ISLAND_FIELD(island_gpus_per_node, "cluster.islands.#.gpus_per_node", gpus_per_node),
    SHARDMETER_ISLAND_FIELD(island_count, "cluster.islands.#.count", count),
    SHARDMETER_ISLAND_FIELD(island_gpu_name, "cluster.islands.#.gpu", gpu.name),
    SHARDMETER_FIELD(cluster_islands, "cluster.islands", cluster.island_entries),
    SHARDMETER_FIELD(cluster_wan, "cluster.wan", cluster.wan),
    SHARDMETER_FIELD(cluster_links, "cluster.links", cluster.links),
    SHARDMETER_FIELD(cluster_link_overrides, "cluster.links", cluster.link_overrides),
    SHARDMETER_FIELD(plan_tp, "plan.tp", plan.tp),
    SHARDMETER_FIELD(plan_pp, "plan.pp", plan.pp),
    SHARDMETER_FIELD(plan_cp, "plan.cp", plan.cp),
    SHARDMETER_FIELD(plan_interleave, "plan.interleave", plan.interleave),
    SHARDMETER_FIELD(plan_sharding, "plan.sharding", plan.sharding),
    SHARDMETER_FIELD(plan_shard_group, "plan.shard_group", plan.shard_group),
    SHARDMETER_FIELD(plan_sync, "plan.sync", plan.sync),
    SHARDMETER_FIELD(plan_pp_across_islands, "plan.pp_across_islands", plan.pp_across_islands),
    SHARDMETER_FIELD(plan_batch_split, "plan.batch_split", plan.batch_split),
    SHARDMETER_FIELD(model_experts, "model.experts", model.moe.experts),
    SHARDMETER_FIELD(plan_ep, "plan.ep", plan.ep),
    SHARDMETER_FIELD(plan_etp, "plan.etp", plan.etp),
    SHARDMETER_FIELD(training_precision, "training.precision", training.precision),
    SHARDMETER_FIELD(training_fp8_params, "training.fp8_params", training.fp8_params),
    SHARDMETER_FIELD(training_fp8_recipe, "training.fp8_recipe", training.fp8_recipe),
    SHARDMETER_FIELD(plan_stack, "plan.stack", plan.stack),
    SHARDMETER_ISLAND_FIELD(island_gpu_fp8, "cluster.islands.#.fp8_tflops", gpu.peak_fp8_flops_per_s),
    SHARDMETER_FIELD(plan_pp_first_stage_layers, "plan.pp_first_stage_layers", plan.pp_first_stage_layers),
    SHARDMETER_FIELD(plan_pp_last_stage_layers, "plan.pp_last_stage_layers", plan.pp_last_stage_layers),
    SHARDMETER_FIELD(plan_pp_embedding_layers, "plan.pp_embedding_layers", plan.pp_embedding_layers),
    SHARDMETER_FIELD(plan_pp_head_layers, "plan.pp_head_layers", plan.pp_head_layers),
    SHARDMETER_FIELD(plan_pipeline_schedule, "plan.pipeline_schedule", plan.pipeline_schedule),
    SHARDMETER_FIELD(plan_fp8_activation_cache, "plan.fp8_activation_cache", plan.fp8_activation_cache),
    SHARDMETER_ISLAND_FIELD(island_gpu_compute_capability, "cluster.islands.#.compute_capability",
                            gpu.compute_capability),
    SHARDMETER_FIELD(plan_recompute, "plan.recompute", plan.recompute),
    SHARDMETER_FIELD(plan_activation_offload_layers, "plan.activation_offload_layers", plan.activation_offload_layers),
    SHARDMETER_FIELD(plan_optimizer_offload_fraction, "plan.optimizer_offload_fraction", plan.optimizer_offload_fraction),
    SHARDMETER_ISLAND_FIELD(island_gpu_host_link, "cluster.islands.#.host_link_gbps", gpu.host_link_bytes_per_s),
}};

#undef SHARDMETER_FIELD
#undef SHARDMETER_ISLAND_FIELD

// One row per FieldId, in enum order (so a lookup is an index), each inside its struct.
constexpr bool rows_are_complete() {
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    const FieldRow& row = kFields[i];
    if (static_cast<std::size_t>(row.id) != i) return false;
    const std::size_t limit = row.island ? sizeof(IslandSpec) : sizeof(Scenario);
    if (row.bytes.offset + row.bytes.size > limit) return false;
    if (row.id != FieldId::none && (row.bytes.size == 0 || row.path.empty())) return false;
    if (row.island != (row.path.find('#') != std::string_view::npos)) return false;
  }
  return true;
}
static_assert(rows_are_complete(), "kFields needs one row per FieldId, in enum order");

// field_bytes(FieldSet) of every field at once fits a ByteRanges (add() would drop what does not).
constexpr int all_ranges() {
  int n = 0;
  for (const FieldRow& row : kFields) n += row.id == FieldId::none ? 0 : (row.island ? kMaxIslands : 1);
  return n;
}
static_assert(all_ranges() <= ByteRanges::kCapacity, "raise ByteRanges::kCapacity");

const FieldRow& row_of(FieldId field) { return kFields[static_cast<std::size_t>(field)]; }

}  // namespace

std::string_view field_path_pattern(FieldId field) noexcept {
  return field < FieldId::count_ ? row_of(field).path : std::string_view{};
}

bool is_island_field(FieldId field) noexcept { return field < FieldId::count_ && row_of(field).island; }

ByteRange field_bytes(FieldId field, int island) noexcept {
  if (field >= FieldId::count_) return {};
  const FieldRow& row = row_of(field);
  if (!row.island) return row.bytes;
  if (island < 0 || island >= kMaxIslands) return {};
  const std::size_t entry = offsetof(Scenario, cluster.islands) + static_cast<std::size_t>(island) * sizeof(IslandSpec);
  return ByteRange{entry + row.bytes.offset, row.bytes.size};
}

ByteRanges field_bytes(FieldSet fields) noexcept {
  ByteRanges out;
  for (const FieldRow& row : kFields) {
    if (!fields.contains(row.id)) continue;
    for (int i = 0; i < (row.island ? kMaxIslands : 1); ++i) out.add(field_bytes(row.id, i));
  }
  return out;
}

}  // namespace shardmeter::model
