#include "model/field_id.hpp"

namespace shardmeter::model {

std::string_view field_path_pattern(FieldId field) noexcept {
  switch (field) {
    case FieldId::none: return "";
    case FieldId::model_layers: return "model.layers";
    case FieldId::model_heads: return "model.heads";
    case FieldId::model_kv_heads: return "model.kv_heads";
    case FieldId::model_ffn_hidden: return "model.ffn_hidden";
    case FieldId::model_seq_len: return "model.seq_len";
    case FieldId::training_global_batch: return "training.global_batch";
    case FieldId::training_micro_batch: return "training.micro_batch";
    case FieldId::island_gpus: return "cluster.islands.#.gpus";
    case FieldId::island_gpus_per_node: return "cluster.islands.#.gpus_per_node";
    case FieldId::island_count: return "cluster.islands.#.count";
    case FieldId::cluster_islands: return "cluster.islands";
    case FieldId::plan_tp: return "plan.tp";
    case FieldId::plan_pp: return "plan.pp";
    case FieldId::plan_cp: return "plan.cp";
    case FieldId::plan_interleave: return "plan.interleave";
    case FieldId::plan_shard_group: return "plan.shard_group";
    case FieldId::plan_sync: return "plan.sync";
    case FieldId::plan_pp_across_islands: return "plan.pp_across_islands";
  }
  return "";
}

}  // namespace shardmeter::model
