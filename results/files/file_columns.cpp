#include "results/files/file_columns.hpp"

#include <array>

#include "model/spec/enum_names.hpp"
#include "model/spec/units.hpp"

namespace shardmeter::results {

namespace m = shardmeter::model;

namespace {

CellView num(double v) { return CellView{v}; }
CellView str(std::string_view v) { return CellView{v}; }
CellView i64(int v) { return CellView{std::int64_t{v}}; }
const m::IslandEstimate& isl(const m::Estimate& e, int i) { return e.islands[static_cast<std::size_t>(i)]; }

// clang-format off
const std::array kJob = {
  EstimateColumn{"bottleneck", units::kName, [](const m::Estimate& e, int) { return str(m::enum_name(e.bottleneck)); }},
  EstimateColumn{"reject_reason", units::kName, [](const m::Estimate& e, int) { return str(m::enum_name(e.reject_reason)); }},
  EstimateColumn{"tokens_per_step", "tokens", [](const m::Estimate& e, int) { return num(e.tokens_per_step); }},
  EstimateColumn{"hardware_flops_per_step", "FLOP", [](const m::Estimate& e, int) { return num(e.hardware_flops_per_step); }},
  EstimateColumn{"wan_gb_per_outer_step", "GB", [](const m::Estimate& e, int) { return num(e.wan_bytes_per_outer_step / m::kGB); }},
  EstimateColumn{"wan_reduction_vs_sync", "factor", [](const m::Estimate& e, int) { return num(e.wan_reduction_vs_sync); }},
  EstimateColumn{"checkpoint_interval_s", "s", [](const m::Estimate& e, int) { return num(e.checkpoint_interval_s); }},
  EstimateColumn{"time_compute_s", "s", [](const m::Estimate& e, int) { return num(e.time.compute_s); }},
  EstimateColumn{"time_recompute_s", "s", [](const m::Estimate& e, int) { return num(e.time.recompute_s); }},
  EstimateColumn{"time_memory_bound_s", "s", [](const m::Estimate& e, int) { return num(e.time.memory_bound_s); }},
  EstimateColumn{"time_tp_comm_s", "s", [](const m::Estimate& e, int) { return num(e.time.tp_comm_s); }},
  EstimateColumn{"time_pp_comm_s", "s", [](const m::Estimate& e, int) { return num(e.time.pp_comm_s); }},
  EstimateColumn{"time_bubble_s", "s", [](const m::Estimate& e, int) { return num(e.time.bubble_s); }},
  EstimateColumn{"time_dp_comm_s", "s", [](const m::Estimate& e, int) { return num(e.time.dp_comm_s); }},
  EstimateColumn{"time_optimizer_s", "s", [](const m::Estimate& e, int) { return num(e.time.optimizer_s); }},
  EstimateColumn{"time_wan_s", "s", [](const m::Estimate& e, int) { return num(e.time.wan_s); }},
  EstimateColumn{"time_straggler_s", "s", [](const m::Estimate& e, int) { return num(e.time.straggler_s); }},
  EstimateColumn{"time_ep_comm_s", "s", [](const m::Estimate& e, int) { return num(e.time.ep_comm_s); }},
  EstimateColumn{"memory_weights_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.weights_bytes / m::kGB); }},
  EstimateColumn{"memory_gradients_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.gradients_bytes / m::kGB); }},
  EstimateColumn{"memory_optimizer_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.optimizer_bytes / m::kGB); }},
  EstimateColumn{"memory_activations_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.activations_bytes / m::kGB); }},
  EstimateColumn{"memory_fsdp_buffers_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.fsdp_buffers_bytes / m::kGB); }},
  EstimateColumn{"memory_logits_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.logits_bytes / m::kGB); }},
  EstimateColumn{"memory_outer_state_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.outer_state_bytes / m::kGB); }},
  EstimateColumn{"memory_runtime_overhead_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.runtime_overhead_bytes / m::kGB); }},
  EstimateColumn{"memory_expert_states_gb", "GB", [](const m::Estimate& e, int) { return num(e.memory.expert_states_bytes / m::kGB); }},
  EstimateColumn{"data_parallel", "replicas", [](const m::Estimate& e, int) { return i64(e.degrees.data_parallel); }},
  EstimateColumn{"dp_shard", "GPUs", [](const m::Estimate& e, int) { return i64(e.degrees.dp_shard); }},
  EstimateColumn{"dp_replicate", "shard groups", [](const m::Estimate& e, int) { return i64(e.degrees.dp_replicate); }},
  EstimateColumn{"microbatches", "micro-batches", [](const m::Estimate& e, int) { return i64(e.degrees.microbatches); }},
};

struct IslandField {
  std::string_view suffix;
  std::string_view unit;
  CellView (*view)(const m::Estimate&, int);
};
const std::array kIsland = {
  IslandField{"tokens_per_s", "tokens/s", [](const m::Estimate& e, int i) { return num(isl(e, i).tokens_per_s); }},
  IslandField{"tokens_per_s_per_gpu", "tokens/s", [](const m::Estimate& e, int i) { return num(isl(e, i).tokens_per_s_per_gpu); }},
  IslandField{"utilization", units::kFraction, [](const m::Estimate& e, int i) { return num(isl(e, i).utilization); }},
  IslandField{"batch_share", units::kFraction, [](const m::Estimate& e, int i) { return num(isl(e, i).batch_share); }},
  IslandField{"step_time_s", "s", [](const m::Estimate& e, int i) { return num(isl(e, i).step_time_s); }},
  IslandField{"memory_per_gpu_gb", "GB", [](const m::Estimate& e, int i) { return num(isl(e, i).memory_per_gpu_bytes / m::kGB); }},
  IslandField{"memory_capacity_gb", "GB", [](const m::Estimate& e, int i) { return num(isl(e, i).memory_capacity_bytes / m::kGB); }},
  IslandField{"bottleneck", units::kName, [](const m::Estimate& e, int i) { return str(m::enum_name(isl(e, i).bottleneck)); }},
  IslandField{"feasible", units::kBoolean, [](const m::Estimate& e, int i) { return CellView{isl(e, i).feasible}; }},
  IslandField{"data_parallel", "replicas", [](const m::Estimate& e, int i) { return i64(isl(e, i).degrees.data_parallel); }},
  IslandField{"dp_shard", "GPUs", [](const m::Estimate& e, int i) { return i64(isl(e, i).degrees.dp_shard); }},
  IslandField{"dp_replicate", "shard groups", [](const m::Estimate& e, int i) { return i64(isl(e, i).degrees.dp_replicate); }},
  IslandField{"microbatches", "micro-batches", [](const m::Estimate& e, int i) { return i64(isl(e, i).degrees.microbatches); }},
};
// clang-format on

const m::IslandSpec& spec(const m::Scenario& s, int i) { return s.cluster.islands[static_cast<std::size_t>(i)]; }

}  // namespace

std::vector<EstimateColumn> estimate_detail_columns(int island_entries) {
  std::vector<EstimateColumn> columns(kJob.begin(), kJob.end());
  for (int i = 0; i < island_entries; ++i)
    for (const IslandField& f : kIsland)
      columns.push_back(EstimateColumn{"island" + std::to_string(i) + "_" + std::string(f.suffix), f.unit, f.view, i});
  return columns;
}

std::vector<ScenarioColumn> scenario_detail_columns(int island_entries) {
  std::vector<ScenarioColumn> columns{ScenarioColumn{
      "training_tokens", "tokens", [](const m::Scenario& s, int) { return CellView{s.training.tokens}; }}};
  for (int i = 0; i < island_entries; ++i) {
    const std::string prefix = "island" + std::to_string(i) + "_";
    columns.push_back(ScenarioColumn{
        prefix + "nodes", "nodes", [](const m::Scenario& s, int k) { return CellView{std::int64_t{spec(s, k).nodes()}}; },
        i});
    columns.push_back(ScenarioColumn{
        prefix + "spot", units::kBoolean, [](const m::Scenario& s, int k) { return CellView{spec(s, k).spot}; }, i});
  }
  return columns;
}

}  // namespace shardmeter::results
