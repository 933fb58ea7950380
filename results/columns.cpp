#include "results/columns.hpp"

#include <array>
#include <type_traits>

#include <fmt/format.h>

#include "model/spec/enum_names.hpp"
#include "model/spec/units.hpp"
#include "results/errors.hpp"

namespace shardmeter::results {

namespace m = shardmeter::model;

double cell_number(const CellValue& v) {
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const bool* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  throw ResultsError("holds text, not a number");
}

std::int64_t cell_integer(const CellValue& v) {
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const bool* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  throw ResultsError("does not hold an integer");
}

bool cell_flag(const CellValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  if (std::holds_alternative<std::string>(v)) throw ResultsError("holds text, not true/false");
  return cell_number(v) != 0;
}

const std::string& cell_text(const CellValue& v) {
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  throw ResultsError("does not hold text");
}

namespace {

CellView str(std::string_view v) { return CellView{v}; }
CellView i64(std::int64_t v) { return CellView{v}; }
CellView num(double v) { return CellView{v}; }
const m::IslandSpec& isl(const m::Scenario& s, int i) { return s.cluster.islands[static_cast<std::size_t>(i)]; }
m::IslandSpec& isl(m::Scenario& s, int i) { return s.cluster.islands[static_cast<std::size_t>(i)]; }
const m::IslandEstimate& isl(const m::Estimate& e, int i) { return e.islands[static_cast<std::size_t>(i)]; }
m::IslandEstimate& isl(m::Estimate& e, int i) { return e.islands[static_cast<std::size_t>(i)]; }

// A field's cell by its type: integers as int64, enums by their one spelling (model/spec/enum_names.hpp), names
// as text. cell() and assign() are the two directions of every SM_FIELD row below.
template <class T>
CellView cell(const T& field) {
  if constexpr (std::is_same_v<T, bool>) return CellView{field};
  else if constexpr (std::is_enum_v<T>) return str(m::enum_name(field));
  else if constexpr (std::is_same_v<T, m::FixedName>) return str(field.view());
  else if constexpr (std::is_floating_point_v<T>) return num(field);
  else return i64(field);
}

template <class T>
void assign(T& field, const CellValue& v) {
  if constexpr (std::is_same_v<T, bool>) field = cell_flag(v);
  else if constexpr (std::is_enum_v<T>) {
    const std::string& name = cell_text(v);
    for (const auto& nv : m::enum_names<T>())
      if (nv.name == name) {
        field = nv.value;
        return;
      }
    throw ResultsError(fmt::format("holds \"{}\", which is not a value this version knows", name));
  } else if constexpr (std::is_same_v<T, m::FixedName>) {
    field.assign(cell_text(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    field = static_cast<T>(cell_number(v));
  } else {
    field = static_cast<T>(cell_integer(v));
  }
}

// One row of a table: a name, a unit and a field expression of `s` (and island entry `i`) that is both the
// getter's value and the setter's target. SM_DERIVED: a value computed from other columns (no setter).
#define SM_FIELD(NAME, UNIT, FIELD)                                                            \
  ScenarioColumn {                                                                             \
    NAME, UNIT, [](const m::Scenario& s, [[maybe_unused]] int i) { return cell(FIELD); },      \
        [](m::Scenario& s, const CellValue& v, [[maybe_unused]] int i) { assign(FIELD, v); }   \
  }
#define SM_DERIVED(NAME, UNIT, VALUE) \
  ScenarioColumn { NAME, UNIT, [](const m::Scenario& s, [[maybe_unused]] int i) { return VALUE; } }
// An estimate field; SM_SCALED stores field / SCALE (bytes as GB).
#define SM_ESTIMATE(NAME, UNIT, FIELD)                                                         \
  EstimateColumn {                                                                             \
    NAME, UNIT, [](const m::Estimate& e, [[maybe_unused]] int i) { return cell(FIELD); },      \
        [](m::Estimate& e, const CellValue& v, [[maybe_unused]] int i) { assign(FIELD, v); }   \
  }
#define SM_SCALED(NAME, UNIT, FIELD, SCALE)                                                    \
  EstimateColumn {                                                                             \
    NAME, UNIT, [](const m::Estimate& e, [[maybe_unused]] int i) { return num(FIELD / SCALE); }, \
        [](m::Estimate& e, const CellValue& v, [[maybe_unused]] int i) { FIELD = cell_number(v) * SCALE; } \
  }

using units::kBoolean;
using units::kFraction;
using units::kName;

// clang-format off
const std::array kJobColumns = {
  SM_FIELD("model_layers", "layers", s.model.layers),
  SM_FIELD("model_hidden", "elements", s.model.hidden),
  SM_FIELD("model_heads", "heads", s.model.heads),
  SM_FIELD("model_kv_heads", "heads", s.model.kv_heads),
  SM_FIELD("model_head_dim", "elements", s.model.head_dim),
  SM_FIELD("model_ffn_hidden", "elements", s.model.ffn_hidden),
  SM_FIELD("model_ffn_type", kName, s.model.ffn_type),
  SM_FIELD("model_vocab", "tokens", s.model.vocab),
  SM_FIELD("model_seq_len", "tokens", s.model.seq_len),
  SM_FIELD("model_norm", kName, s.model.norm),
  SM_FIELD("model_position_embedding", kName, s.model.position_embedding),
  SM_FIELD("model_bias", kBoolean, s.model.bias),
  SM_FIELD("model_tied_embeddings", kBoolean, s.model.tied_embeddings),
  SM_FIELD("model_experts", "experts", s.model.moe.experts),
  SM_FIELD("model_top_k", "experts", s.model.moe.top_k),
  SM_FIELD("model_shared_experts", "experts", s.model.moe.shared_experts),
  SM_FIELD("model_expert_ffn_hidden", "elements", s.model.moe.expert_ffn_hidden),
  SM_FIELD("model_shared_expert_ffn_hidden", "elements", s.model.moe.shared_expert_ffn_hidden),
  SM_FIELD("model_dense_layers", "layers", s.model.moe.dense_layers),
  SM_FIELD("model_moe_every", "layers", s.model.moe.moe_every),
  SM_FIELD("global_batch", "sequences", s.training.global_batch),
  SM_FIELD("micro_batch", "sequences", s.training.micro_batch),
  SM_FIELD("precision", kName, s.training.precision),
  SM_FIELD("tp", "GPUs", s.plan.tp),
  SM_FIELD("pp", "stages", s.plan.pp),
  SM_FIELD("cp", "GPUs", s.plan.cp),
  SM_FIELD("ep", "GPUs", s.plan.ep),
  SM_FIELD("etp", "GPUs", s.plan.etp),
  SM_FIELD("ep_dispatcher", kName, s.plan.ep_dispatcher),
  SM_FIELD("ep_overlap", kBoolean, s.plan.ep_overlap),
  SM_FIELD("interleave", "stages per GPU", s.plan.interleave),
  SM_FIELD("pp_first_stage_layers", "layers", s.plan.pp_first_stage_layers),
  SM_FIELD("pp_last_stage_layers", "layers", s.plan.pp_last_stage_layers),
  SM_FIELD("pp_embedding_layers", "layers", s.plan.pp_embedding_layers),
  SM_FIELD("pp_head_layers", "layers", s.plan.pp_head_layers),
  SM_FIELD("sequence_parallel", kBoolean, s.plan.sequence_parallel),
  SM_FIELD("sharding", kName, s.plan.sharding),
  SM_FIELD("shard_group", "GPUs", s.plan.shard_group),
  SM_FIELD("recompute", kName, s.plan.recompute),
  SM_FIELD("recompute_layers", "blocks per stage", s.plan.recompute_layers),
  SM_FIELD("attention", kName, s.plan.attention),
  SM_FIELD("stack", kName, s.plan.stack),
  SM_FIELD("overlap_grad_reduce", kBoolean, s.plan.overlap_grad_reduce),
  SM_FIELD("overlap_param_gather", kBoolean, s.plan.overlap_param_gather),
  SM_FIELD("reshard_after_forward", kBoolean, s.plan.reshard_after_forward),
  SM_FIELD("tp_comm_overlap", kBoolean, s.plan.tp_comm_overlap),
  SM_FIELD("tp_dgrad_overlap", kBoolean, s.plan.tp_dgrad_overlap),
  SM_FIELD("sync", kName, s.plan.sync),
  SM_FIELD("pp_across_islands", kBoolean, s.plan.pp_across_islands),
  SM_FIELD("diloco_inner_steps", "steps", s.plan.diloco.inner_steps),
  SM_FIELD("diloco_outer_bits", "bits", s.plan.diloco.outer_bits),
  SM_FIELD("diloco_fragments", "fragments", s.plan.diloco.fragments),
  SM_FIELD("diloco_overlap_steps", "steps", s.plan.diloco.overlap_steps),
  SM_FIELD("island_entries", "entries", s.cluster.island_entries),
  SM_DERIVED("islands", "islands", i64(s.cluster.total_islands())),
  SM_DERIVED("total_gpus", "GPUs", i64(s.cluster.total_gpus())),
};

// Island entry i's fields, named "island<i>_<suffix>".
const std::array kIslandColumns = {
  SM_FIELD("name", kName, isl(s, i).name),
  SM_FIELD("gpu", kName, isl(s, i).gpu.name),
  SM_FIELD("gpus", "GPUs", isl(s, i).gpus),
  SM_FIELD("count", "islands", isl(s, i).count),
  SM_FIELD("gpus_per_node", "GPUs", isl(s, i).gpus_per_node),
  SM_FIELD("price_usd_per_gpu_hour", "USD per GPU-hour", isl(s, i).price_usd_per_gpu_hour),
  ScenarioColumn{"node_network_gbps", "Gbit/s",
                 [](const m::Scenario& s, int i) { return num(isl(s, i).node_network.bytes_per_s * 8.0 / 1e9); },
                 [](m::Scenario& s, const CellValue& v, int i) { isl(s, i).node_network.bytes_per_s = cell_number(v) * 1e9 / 8.0; }},
};

// Scenario fields written after the metrics (scenario_detail_columns); island ones named "island<i>_<suffix>".
const std::array kJobDetailColumns = {
  SM_FIELD("training_tokens", "tokens", s.training.tokens),
};
const std::array kIslandDetailColumns = {
  SM_DERIVED("nodes", "nodes", i64(isl(s, i).nodes())),
  SM_FIELD("spot", kBoolean, isl(s, i).spot),
};

const std::array kEstimateColumns = {
  SM_ESTIMATE("bottleneck", kName, e.bottleneck),
  SM_ESTIMATE("reject_reason", kName, e.reject_reason),
  SM_ESTIMATE("tokens_per_step", "tokens", e.tokens_per_step),
  SM_ESTIMATE("hardware_flops_per_step", "FLOP", e.hardware_flops_per_step),
  SM_SCALED("wan_gb_per_outer_step", "GB", e.wan_bytes_per_outer_step, m::kGB),
  SM_ESTIMATE("wan_reduction_vs_sync", "factor", e.wan_reduction_vs_sync),
  SM_ESTIMATE("checkpoint_interval_s", "s", e.checkpoint_interval_s),
  SM_ESTIMATE("time_compute_s", "s", e.time.compute_s),
  SM_ESTIMATE("time_recompute_s", "s", e.time.recompute_s),
  SM_ESTIMATE("time_memory_bound_s", "s", e.time.memory_bound_s),
  SM_ESTIMATE("time_tp_comm_s", "s", e.time.tp_comm_s),
  SM_ESTIMATE("time_pp_comm_s", "s", e.time.pp_comm_s),
  SM_ESTIMATE("time_bubble_s", "s", e.time.bubble_s),
  SM_ESTIMATE("time_dp_comm_s", "s", e.time.dp_comm_s),
  SM_ESTIMATE("time_optimizer_s", "s", e.time.optimizer_s),
  SM_ESTIMATE("time_wan_s", "s", e.time.wan_s),
  SM_ESTIMATE("time_straggler_s", "s", e.time.straggler_s),
  SM_ESTIMATE("time_ep_comm_s", "s", e.time.ep_comm_s),
  SM_SCALED("memory_weights_gb", "GB", e.memory.weights_bytes, m::kGB),
  SM_SCALED("memory_gradients_gb", "GB", e.memory.gradients_bytes, m::kGB),
  SM_SCALED("memory_optimizer_gb", "GB", e.memory.optimizer_bytes, m::kGB),
  SM_SCALED("memory_activations_gb", "GB", e.memory.activations_bytes, m::kGB),
  SM_SCALED("memory_fsdp_buffers_gb", "GB", e.memory.fsdp_buffers_bytes, m::kGB),
  SM_SCALED("memory_logits_gb", "GB", e.memory.logits_bytes, m::kGB),
  SM_SCALED("memory_outer_state_gb", "GB", e.memory.outer_state_bytes, m::kGB),
  SM_SCALED("memory_runtime_overhead_gb", "GB", e.memory.runtime_overhead_bytes, m::kGB),
  SM_SCALED("memory_expert_states_gb", "GB", e.memory.expert_states_bytes, m::kGB),
  SM_ESTIMATE("data_parallel", "replicas", e.degrees.data_parallel),
  SM_ESTIMATE("dp_shard", "GPUs", e.degrees.dp_shard),
  SM_ESTIMATE("dp_replicate", "shard groups", e.degrees.dp_replicate),
  SM_ESTIMATE("microbatches", "micro-batches", e.degrees.microbatches),
};

const std::array kIslandEstimateColumns = {
  SM_ESTIMATE("tokens_per_s", "tokens/s", isl(e, i).tokens_per_s),
  SM_ESTIMATE("tokens_per_s_per_gpu", "tokens/s", isl(e, i).tokens_per_s_per_gpu),
  SM_ESTIMATE("utilization", kFraction, isl(e, i).utilization),
  SM_ESTIMATE("batch_share", kFraction, isl(e, i).batch_share),
  SM_ESTIMATE("step_time_s", "s", isl(e, i).step_time_s),
  SM_SCALED("memory_per_gpu_gb", "GB", isl(e, i).memory_per_gpu_bytes, m::kGB),
  SM_SCALED("memory_capacity_gb", "GB", isl(e, i).memory_capacity_bytes, m::kGB),
  SM_ESTIMATE("bottleneck", kName, isl(e, i).bottleneck),
  SM_ESTIMATE("feasible", kBoolean, isl(e, i).feasible),
  SM_ESTIMATE("data_parallel", "replicas", isl(e, i).degrees.data_parallel),
  SM_ESTIMATE("dp_shard", "GPUs", isl(e, i).degrees.dp_shard),
  SM_ESTIMATE("dp_replicate", "shard groups", isl(e, i).degrees.dp_replicate),
  SM_ESTIMATE("microbatches", "micro-batches", isl(e, i).degrees.microbatches),
};
// clang-format on

#undef SM_FIELD
#undef SM_DERIVED
#undef SM_ESTIMATE
#undef SM_SCALED

// The job-wide rows, then every island row once per entry 0..entries-1, named "island<i>_<name>".
template <class Column, std::size_t J, std::size_t I>
std::vector<Column> expand(const std::array<Column, J>& job, const std::array<Column, I>& island, int entries) {
  std::vector<Column> columns(job.begin(), job.end());
  for (int i = 0; i < entries; ++i)
    for (const Column& c : island) {
      Column copy = c;
      copy.name = "island" + std::to_string(i) + "_" + c.name;
      copy.island = i;
      columns.push_back(std::move(copy));
    }
  return columns;
}

}  // namespace

std::span<const ScenarioColumn> job_scenario_columns() noexcept { return kJobColumns; }

std::vector<ScenarioColumn> scenario_columns(int island_entries) {
  return expand(kJobColumns, kIslandColumns, island_entries);
}

std::vector<ScenarioColumn> scenario_detail_columns(int island_entries) {
  return expand(kJobDetailColumns, kIslandDetailColumns, island_entries);
}

std::vector<EstimateColumn> estimate_detail_columns(int island_entries) {
  return expand(kEstimateColumns, kIslandEstimateColumns, island_entries);
}

}  // namespace shardmeter::results
