#pragma once
// The named columns every writer uses (estimate JSON, tables, CSV, HDF5 fronts), so a metric or plan field has
// one name everywhere. Metric names are a contract: other tools read them.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/estimate.hpp"
#include "model/scenario.hpp"

namespace shardmeter::results {

// A scalar metric of an estimate (per job).
struct MetricColumn {
  std::string_view name;   // e.g. "tokens_per_s"
  std::string_view unit;   // e.g. "tokens/s", "USD", "" for ratios
  double (*get)(const model::Estimate&);
};
std::span<const MetricColumn> metric_columns() noexcept;

// A plan / training / cluster field of a scenario. Island fields are expanded per island entry
// ("island0_gpu", "island0_gpus", ...) by scenario_columns(n_islands).
using CellValue = std::variant<std::int64_t, double, std::string>;
struct ScenarioColumn {
  std::string name;
  CellValue (*get)(const model::Scenario&, int island);
  int island = -1;         // island entry the column reads, -1 for job-wide fields
};
std::span<const ScenarioColumn> job_scenario_columns() noexcept;
// Job-wide columns followed by per-island columns for entries 0..island_entries-1.
std::vector<ScenarioColumn> scenario_columns(int island_entries);

}  // namespace shardmeter::results
