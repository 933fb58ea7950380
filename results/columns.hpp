#pragma once
// The plan columns every writer uses (estimate JSON, tables, CSV, HDF5 fronts), so a plan field has one name
// everywhere; the metric columns are model/spec/metrics.hpp's table. Column names and units are a contract: other tools
// read them (results/README.md).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "model/spec/metrics.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::results {

// One cell of a result row. Booleans are their own alternative, so files store them as booleans (HDF5: h5py's bool
// enum; CSV: true/false; JSON: true/false); number() and integer() read them as 1 / 0.
using CellValue = std::variant<std::int64_t, double, std::string, bool>;
// The same cell without an owned string: text is a view of a static enum spelling or of a name inside the scenario /
// estimate read, valid while that object lives. Trivially destructible, so writers of many rows (h5io::pack) read a
// column's value without building and destroying a CellValue; to_value() gives the CellValue the other writers use.
using CellView = std::variant<std::int64_t, double, std::string_view, bool>;
static_assert(std::is_trivially_destructible_v<CellView>);
inline CellValue to_value(const CellView& v) {
  if (const auto* text = std::get_if<std::string_view>(&v)) return CellValue{std::string(*text)};
  if (const auto* i = std::get_if<std::int64_t>(&v)) return CellValue{*i};
  if (const auto* d = std::get_if<double>(&v)) return CellValue{*d};
  return CellValue{std::get<bool>(v)};
}

// Units of columns that are not measured quantities: named choices, free names, labels and booleans.
namespace units {
inline constexpr std::string_view kName = "name";          // an enum spelling or a free name ("fsdp", "us-east")
inline constexpr std::string_view kLabel = "label";        // an axis value as written in the scenario
inline constexpr std::string_view kBoolean = model::metric_table::kBoolean;
inline constexpr std::string_view kFraction = model::metric_table::kFraction;
}  // namespace units

// A plan / training / cluster field of a scenario. Island fields are expanded per island entry
// ("island0_gpu", "island0_gpus", ...) by scenario_columns(n_islands).
struct ScenarioColumn {
  std::string name;
  std::string_view unit;   // never empty (results/README.md lists every column's unit)
  CellView (*view)(const model::Scenario&, int island);   // the column's one getter
  int island = -1;         // island entry the column reads, -1 for job-wide fields
  CellValue get(const model::Scenario& s, int island_entry) const { return to_value(view(s, island_entry)); }
};
std::span<const ScenarioColumn> job_scenario_columns() noexcept;
// Job-wide columns followed by per-island columns for entries 0..island_entries-1.
std::vector<ScenarioColumn> scenario_columns(int island_entries);

}  // namespace shardmeter::results
