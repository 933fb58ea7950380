#include "results/columns.hpp"

#include <array>

#include "model/spec/enum_names.hpp"

namespace shardmeter::results {

namespace m = shardmeter::model;

namespace {

CellView str(std::string_view v) { return CellView{v}; }
CellView i64(std::int64_t v) { return CellView{v}; }
CellView flag(bool v) { return CellView{v}; }
const m::IslandSpec& isl(const m::Scenario& s, int i) { return s.cluster.islands[static_cast<std::size_t>(i)]; }

using units::kBoolean;
using units::kName;

// clang-format off
const std::array kJobColumns = {
  ScenarioColumn{"model_layers", "layers", [](const m::Scenario& s, int) { return i64(s.model.layers); }},
  ScenarioColumn{"model_hidden", "elements", [](const m::Scenario& s, int) { return i64(s.model.hidden); }},
  ScenarioColumn{"model_heads", "heads", [](const m::Scenario& s, int) { return i64(s.model.heads); }},
  ScenarioColumn{"model_kv_heads", "heads", [](const m::Scenario& s, int) { return i64(s.model.kv_heads); }},
  ScenarioColumn{"model_head_dim", "elements", [](const m::Scenario& s, int) { return i64(s.model.head_dim); }},
  ScenarioColumn{"model_ffn_hidden", "elements", [](const m::Scenario& s, int) { return i64(s.model.ffn_hidden); }},
  ScenarioColumn{"model_ffn_type", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.model.ffn_type)); }},
  ScenarioColumn{"model_vocab", "tokens", [](const m::Scenario& s, int) { return i64(s.model.vocab); }},
  ScenarioColumn{"model_seq_len", "tokens", [](const m::Scenario& s, int) { return i64(s.model.seq_len); }},
  ScenarioColumn{"model_norm", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.model.norm)); }},
  ScenarioColumn{"model_position_embedding", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.model.position_embedding)); }},
  ScenarioColumn{"model_bias", kBoolean, [](const m::Scenario& s, int) { return flag(s.model.bias); }},
  ScenarioColumn{"model_tied_embeddings", kBoolean, [](const m::Scenario& s, int) { return flag(s.model.tied_embeddings); }},
  ScenarioColumn{"model_experts", "experts", [](const m::Scenario& s, int) { return i64(s.model.moe.experts); }},
  ScenarioColumn{"model_top_k", "experts", [](const m::Scenario& s, int) { return i64(s.model.moe.top_k); }},
  ScenarioColumn{"model_shared_experts", "experts", [](const m::Scenario& s, int) { return i64(s.model.moe.shared_experts); }},
  ScenarioColumn{"model_expert_ffn_hidden", "elements", [](const m::Scenario& s, int) { return i64(s.model.moe.expert_ffn_hidden); }},
  ScenarioColumn{"model_shared_expert_ffn_hidden", "elements", [](const m::Scenario& s, int) { return i64(s.model.moe.shared_expert_ffn_hidden); }},
  ScenarioColumn{"model_dense_layers", "layers", [](const m::Scenario& s, int) { return i64(s.model.moe.dense_layers); }},
  ScenarioColumn{"model_moe_every", "layers", [](const m::Scenario& s, int) { return i64(s.model.moe.moe_every); }},
  ScenarioColumn{"global_batch", "sequences", [](const m::Scenario& s, int) { return i64(s.training.global_batch); }},
  ScenarioColumn{"micro_batch", "sequences", [](const m::Scenario& s, int) { return i64(s.training.micro_batch); }},
  ScenarioColumn{"precision", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.training.precision)); }},
  ScenarioColumn{"tp", "GPUs", [](const m::Scenario& s, int) { return i64(s.plan.tp); }},
  ScenarioColumn{"pp", "stages", [](const m::Scenario& s, int) { return i64(s.plan.pp); }},
  ScenarioColumn{"cp", "GPUs", [](const m::Scenario& s, int) { return i64(s.plan.cp); }},
  ScenarioColumn{"ep", "GPUs", [](const m::Scenario& s, int) { return i64(s.plan.ep); }},
  ScenarioColumn{"etp", "GPUs", [](const m::Scenario& s, int) { return i64(s.plan.etp); }},
  ScenarioColumn{"ep_dispatcher", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.ep_dispatcher)); }},
  ScenarioColumn{"ep_overlap", kBoolean, [](const m::Scenario& s, int) { return flag(s.plan.ep_overlap); }},
  ScenarioColumn{"interleave", "stages per GPU", [](const m::Scenario& s, int) { return i64(s.plan.interleave); }},
  ScenarioColumn{"pp_first_stage_layers", "layers", [](const m::Scenario& s, int) { return i64(s.plan.pp_first_stage_layers); }},
  ScenarioColumn{"pp_last_stage_layers", "layers", [](const m::Scenario& s, int) { return i64(s.plan.pp_last_stage_layers); }},
  ScenarioColumn{"pp_embedding_layers", "layers", [](const m::Scenario& s, int) { return i64(s.plan.pp_embedding_layers); }},
  ScenarioColumn{"pp_head_layers", "layers", [](const m::Scenario& s, int) { return i64(s.plan.pp_head_layers); }},
  ScenarioColumn{"sequence_parallel", kBoolean, [](const m::Scenario& s, int) { return flag(s.plan.sequence_parallel); }},
  ScenarioColumn{"sharding", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.sharding)); }},
  ScenarioColumn{"shard_group", "GPUs", [](const m::Scenario& s, int) { return i64(s.plan.shard_group); }},
  ScenarioColumn{"recompute", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.recompute)); }},
  ScenarioColumn{"recompute_layers", "blocks per stage", [](const m::Scenario& s, int) { return i64(s.plan.recompute_layers); }},
  ScenarioColumn{"attention", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.attention)); }},
  ScenarioColumn{"stack", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.stack)); }},
  ScenarioColumn{"overlap_grad_reduce", kBoolean, [](const m::Scenario& s, int) { return flag(s.plan.overlap_grad_reduce); }},
  ScenarioColumn{"overlap_param_gather", kBoolean, [](const m::Scenario& s, int) { return flag(s.plan.overlap_param_gather); }},
  ScenarioColumn{"reshard_after_forward", kBoolean, [](const m::Scenario& s, int) { return flag(s.plan.reshard_after_forward); }},
  ScenarioColumn{"tp_comm_overlap", kBoolean, [](const m::Scenario& s, int) { return flag(s.plan.tp_comm_overlap); }},
  ScenarioColumn{"tp_dgrad_overlap", kBoolean, [](const m::Scenario& s, int) { return flag(s.plan.tp_dgrad_overlap); }},
  ScenarioColumn{"sync", kName, [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.sync)); }},
  ScenarioColumn{"pp_across_islands", kBoolean, [](const m::Scenario& s, int) { return flag(s.plan.pp_across_islands); }},
  ScenarioColumn{"diloco_inner_steps", "steps", [](const m::Scenario& s, int) { return i64(s.plan.diloco.inner_steps); }},
  ScenarioColumn{"diloco_outer_bits", "bits", [](const m::Scenario& s, int) { return i64(s.plan.diloco.outer_bits); }},
  ScenarioColumn{"diloco_fragments", "fragments", [](const m::Scenario& s, int) { return i64(s.plan.diloco.fragments); }},
  ScenarioColumn{"diloco_overlap_steps", "steps", [](const m::Scenario& s, int) { return i64(s.plan.diloco.overlap_steps); }},
  ScenarioColumn{"island_entries", "entries", [](const m::Scenario& s, int) { return i64(s.cluster.island_entries); }},
  ScenarioColumn{"islands", "islands", [](const m::Scenario& s, int) { return i64(s.cluster.total_islands()); }},
  ScenarioColumn{"total_gpus", "GPUs", [](const m::Scenario& s, int) { return i64(s.cluster.total_gpus()); }},
};
// clang-format on

struct IslandField {
  std::string_view suffix;
  std::string_view unit;
  CellView (*view)(const m::Scenario&, int);
};
// clang-format off
const std::array kIslandFields = {
  IslandField{"name", kName, [](const m::Scenario& s, int i) { return str(isl(s, i).name.view()); }},
  IslandField{"gpu", kName, [](const m::Scenario& s, int i) { return str(isl(s, i).gpu.name.view()); }},
  IslandField{"gpus", "GPUs", [](const m::Scenario& s, int i) { return i64(isl(s, i).gpus); }},
  IslandField{"count", "islands", [](const m::Scenario& s, int i) { return i64(isl(s, i).count); }},
  IslandField{"gpus_per_node", "GPUs", [](const m::Scenario& s, int i) { return i64(isl(s, i).gpus_per_node); }},
  IslandField{"price_usd_per_gpu_hour", "USD per GPU-hour", [](const m::Scenario& s, int i) { return CellView{isl(s, i).price_usd_per_gpu_hour}; }},
  IslandField{"node_network_gbps", "Gbit/s", [](const m::Scenario& s, int i) { return CellView{isl(s, i).node_network.bytes_per_s * 8.0 / 1e9}; }},
};
// clang-format on

}  // namespace

std::span<const ScenarioColumn> job_scenario_columns() noexcept { return kJobColumns; }

std::vector<ScenarioColumn> scenario_columns(int island_entries) {
  std::vector<ScenarioColumn> columns(kJobColumns.begin(), kJobColumns.end());
  for (int i = 0; i < island_entries; ++i)
    for (const IslandField& f : kIslandFields)
      columns.push_back(ScenarioColumn{"island" + std::to_string(i) + "_" + std::string(f.suffix), f.unit, f.view, i});
  return columns;
}

}  // namespace shardmeter::results
