#pragma once
// Columns that result files carry beyond the plan columns (columns.hpp) and the metrics (model/spec/metrics.hpp): the
// estimate's text fields (bottleneck, reject reason), its time and memory breakdowns, its data-parallel degrees,
// per-island figures, and a few scenario fields reports and export need. Units in names; they are part of the file
// contract (results/README.md).
#include <string>
#include <string_view>
#include <vector>

#include "model/spec/estimate.hpp"
#include "results/columns.hpp"

namespace shardmeter::results {

struct EstimateColumn {
  std::string name;        // e.g. "bottleneck", "time_tp_comm_s", "island0_tokens_per_s"
  std::string_view unit;   // never empty (results/README.md)
  CellView (*view)(const model::Estimate&, int island);   // the column's one getter
  int island = -1;         // island entry the column reads, -1 for job-wide fields
  CellValue get(const model::Estimate& e, int island_entry) const { return to_value(view(e, island_entry)); }
};

// Job-wide estimate columns that are not metrics (model/spec/metrics.hpp), then per-island ones for entries 0..island_entries-1.
std::vector<EstimateColumn> estimate_detail_columns(int island_entries);

// Scenario fields not in scenario_columns(): training_tokens, islandN_nodes, islandN_spot.
std::vector<ScenarioColumn> scenario_detail_columns(int island_entries);

}  // namespace shardmeter::results
