#pragma once
// The one column table of result files, both ways: every column a writer writes (estimate JSON, tables, CSV, HDF5
// fronts and /all) with its name, unit, getter and setter, so a field has one name everywhere and the row decoder
// (results/front/row_decoder.hpp) reads a row back into a model::Scenario and model::Estimate through the same rows.
// The metric columns are model/spec/metrics.hpp's table (read back as typed metrics, PlanRecord::metrics). Column
// names and units are a contract: other tools read them (results/README.md, "Adding a column").
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "model/spec/metrics.hpp"
#include "model/spec/estimate.hpp"
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
  // The column's one setter: the field from a cell read back (enums by their model/spec/enum_names.hpp spelling).
  // Throws ResultsError for a cell of the wrong type or an unknown spelling; nullptr for a column derived from
  // others (islands, total_gpus, islandN_nodes), which the decoder does not set.
  void (*set)(model::Scenario&, const CellValue&, int island) = nullptr;
  int island = -1;         // island entry the column reads, -1 for job-wide fields
  CellValue get(const model::Scenario& s, int island_entry) const { return to_value(view(s, island_entry)); }
};
std::span<const ScenarioColumn> job_scenario_columns() noexcept;
// Job-wide columns followed by per-island columns for entries 0..island_entries-1.
std::vector<ScenarioColumn> scenario_columns(int island_entries);
// Scenario fields result files carry beyond scenario_columns(): training_tokens, islandN_nodes, islandN_spot.
std::vector<ScenarioColumn> scenario_detail_columns(int island_entries);

// An estimate field that is not a metric (model/spec/metrics.hpp): the bottleneck and reject reason, the time and
// memory breakdowns, the data-parallel degrees, per-island figures.
struct EstimateColumn {
  std::string name;        // e.g. "bottleneck", "time_tp_comm_s", "island0_tokens_per_s"
  std::string_view unit;   // never empty (results/README.md)
  CellView (*view)(const model::Estimate&, int island);   // the column's one getter
  void (*set)(model::Estimate&, const CellValue&, int island) = nullptr;   // its one setter
  int island = -1;         // island entry the column reads, -1 for job-wide fields
  CellValue get(const model::Estimate& e, int island_entry) const { return to_value(view(e, island_entry)); }
};
// Job-wide estimate columns that are not metrics, then per-island ones for entries 0..island_entries-1.
std::vector<EstimateColumn> estimate_detail_columns(int island_entries);

// A cell read as a field's type (the setters' readers; number / integer / flag / text of results/front/row.hpp
// on one cell). Booleans read as 1 / 0; flag() reads numbers of files before schema_version 3 (non-zero = true).
// Throw ResultsError without the column's name (the decoder adds it).
double cell_number(const CellValue& v);
std::int64_t cell_integer(const CellValue& v);
bool cell_flag(const CellValue& v);
const std::string& cell_text(const CellValue& v);

}  // namespace shardmeter::results
