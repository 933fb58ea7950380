#pragma once
// The plan columns every writer uses (estimate JSON, tables, CSV, HDF5 fronts), so a plan field has one name
// everywhere; the metric columns are model/metrics.hpp's table. Column names are a contract: other tools read them.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/scenario.hpp"

namespace shardmeter::results {

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
