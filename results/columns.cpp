#include "results/columns.hpp"

#include <array>

#include "model/enum_names.hpp"

namespace shardmeter::results {

namespace m = shardmeter::model;

namespace {

CellValue str(std::string_view v) { return CellValue{std::string(v)}; }
CellValue i64(std::int64_t v) { return CellValue{v}; }
const m::IslandSpec& isl(const m::Scenario& s, int i) { return s.cluster.islands[static_cast<std::size_t>(i)]; }

// clang-format off
const std::array kJobColumns = {
  ScenarioColumn{"model_layers", [](const m::Scenario& s, int) { return i64(s.model.layers); }},
  ScenarioColumn{"model_hidden", [](const m::Scenario& s, int) { return i64(s.model.hidden); }},
  ScenarioColumn{"model_seq_len", [](const m::Scenario& s, int) { return i64(s.model.seq_len); }},
  ScenarioColumn{"global_batch", [](const m::Scenario& s, int) { return i64(s.training.global_batch); }},
  ScenarioColumn{"micro_batch", [](const m::Scenario& s, int) { return i64(s.training.micro_batch); }},
  ScenarioColumn{"precision", [](const m::Scenario& s, int) { return str(m::enum_name(s.training.precision)); }},
  ScenarioColumn{"tp", [](const m::Scenario& s, int) { return i64(s.plan.tp); }},
  ScenarioColumn{"pp", [](const m::Scenario& s, int) { return i64(s.plan.pp); }},
  ScenarioColumn{"cp", [](const m::Scenario& s, int) { return i64(s.plan.cp); }},
  ScenarioColumn{"ep", [](const m::Scenario& s, int) { return i64(s.plan.ep); }},
  ScenarioColumn{"etp", [](const m::Scenario& s, int) { return i64(s.plan.etp); }},
  ScenarioColumn{"interleave", [](const m::Scenario& s, int) { return i64(s.plan.interleave); }},
  ScenarioColumn{"sequence_parallel", [](const m::Scenario& s, int) { return i64(s.plan.sequence_parallel ? 1 : 0); }},
  ScenarioColumn{"sharding", [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.sharding)); }},
  ScenarioColumn{"shard_group", [](const m::Scenario& s, int) { return i64(s.plan.shard_group); }},
  ScenarioColumn{"recompute", [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.recompute)); }},
  ScenarioColumn{"attention", [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.attention)); }},
  ScenarioColumn{"sync", [](const m::Scenario& s, int) { return str(m::enum_name(s.plan.sync)); }},
  ScenarioColumn{"pp_across_islands", [](const m::Scenario& s, int) { return i64(s.plan.pp_across_islands ? 1 : 0); }},
  ScenarioColumn{"diloco_inner_steps", [](const m::Scenario& s, int) { return i64(s.plan.diloco.inner_steps); }},
  ScenarioColumn{"diloco_outer_bits", [](const m::Scenario& s, int) { return i64(s.plan.diloco.outer_bits); }},
  ScenarioColumn{"island_entries", [](const m::Scenario& s, int) { return i64(s.cluster.island_entries); }},
  ScenarioColumn{"islands", [](const m::Scenario& s, int) { return i64(s.cluster.total_islands()); }},
  ScenarioColumn{"total_gpus", [](const m::Scenario& s, int) { return i64(s.cluster.total_gpus()); }},
};
// clang-format on

struct IslandField {
  std::string_view suffix;
  CellValue (*get)(const m::Scenario&, int);
};
// clang-format off
const std::array kIslandFields = {
  IslandField{"name", [](const m::Scenario& s, int i) { return str(isl(s, i).name.view()); }},
  IslandField{"gpu", [](const m::Scenario& s, int i) { return str(isl(s, i).gpu.name.view()); }},
  IslandField{"gpus", [](const m::Scenario& s, int i) { return i64(isl(s, i).gpus); }},
  IslandField{"count", [](const m::Scenario& s, int i) { return i64(isl(s, i).count); }},
  IslandField{"gpus_per_node", [](const m::Scenario& s, int i) { return i64(isl(s, i).gpus_per_node); }},
  IslandField{"price_usd_per_gpu_hour", [](const m::Scenario& s, int i) { return CellValue{isl(s, i).price_usd_per_gpu_hour}; }},
  IslandField{"node_network_gbps", [](const m::Scenario& s, int i) { return CellValue{isl(s, i).node_network.bytes_per_s * 8.0 / 1e9}; }},
};
// clang-format on

}  // namespace

std::span<const ScenarioColumn> job_scenario_columns() noexcept { return kJobColumns; }

std::vector<ScenarioColumn> scenario_columns(int island_entries) {
  std::vector<ScenarioColumn> columns(kJobColumns.begin(), kJobColumns.end());
  for (int i = 0; i < island_entries; ++i)
    for (const IslandField& f : kIslandFields)
      columns.push_back(ScenarioColumn{"island" + std::to_string(i) + "_" + std::string(f.suffix), f.get, i});
  return columns;
}

}  // namespace shardmeter::results
