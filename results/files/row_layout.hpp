#pragma once
// The columns of a result file (HDF5 /front and /all, CSV, JSON) and how a PlanPoint fills them:
//   index | scenario columns | metric columns | estimate detail columns | axis:<path> columns
// One layout per file; its shape depends only on the number of island entries and the search axes.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/spec/metrics.hpp"
#include "results/columns.hpp"
#include "results/front/plan_point.hpp"
#include "results/front/row.hpp"

namespace shardmeter::results {

// boolean: h5py's bool enum (int8 FALSE/TRUE) in HDF5, true/false in CSV and JSON.
enum class ColumnType : std::uint8_t { uint64, int64, float64, text, boolean };

// One row's sources without a PlanPoint (which holds copies of the scenario and the estimate, and owns its labels):
// what h5io::pack reads for each row of /all, e.g. straight from a search worker's cursor and estimate.
struct RowView {
  const model::Scenario& scenario;
  const model::Estimate& estimate;
  std::uint64_t index = 0;
  std::span<const std::string_view> labels;   // one per axis, in RowLayout::axes() order
};

struct FileColumn {
  // Where the column's value comes from; with `island`, `scenario_view` / `estimate_view` / `label` below, the same
  // value get() gives, read without a PlanPoint, a std::function call or a CellValue (h5io::pack).
  enum class Source : std::uint8_t { index, scenario, metric, estimate, label };

  std::string name;
  ColumnType type = ColumnType::float64;
  std::string unit;                 // never empty: "GPUs", "fraction", "name", "true/false", ...
  std::size_t text_width = 0;       // text columns: bytes of the fixed-length string (values may be shorter)
  std::function<CellValue(const PlanPoint&)> get;
  // Metric columns (model/spec/metrics.hpp): the metric's own getter, which get() wraps. Writers of many rows call it
  // directly (h5io::pack), without a std::function call and a CellValue per cell.
  model::MetricGetter metric = nullptr;
  Source source = Source::index;
  // Source::scenario / Source::estimate: the column's own getter (ScenarioColumn::view, EstimateColumn::view), which
  // get() wraps with to_value().
  CellView (*scenario_view)(const model::Scenario&, int island) = nullptr;
  CellView (*estimate_view)(const model::Estimate&, int island) = nullptr;
  int island = -1;                  // the island argument of scenario_view / estimate_view
  std::size_t label = 0;            // Source::label: the axis
};

// "axis:" + dotted path, e.g. "axis:cluster.islands.0.gpu".
std::string axis_column_name(std::string_view axis);
inline constexpr std::string_view kAxisPrefix = "axis:";

class RowLayout {
public:
  // Width of names and enum texts: model::FixedName holds at most 31 characters.
  static constexpr std::size_t kNameWidth = 32;
  static constexpr std::size_t kDefaultLabelWidth = 64;

  // island_entries: per-island columns for entries 0..island_entries-1 (points with fewer entries leave the rest
  // zero / empty). axis_label_width: bytes reserved for each axis label (longer labels are an error).
  RowLayout(int island_entries, std::vector<std::string> axes, std::size_t axis_label_width = kDefaultLabelWidth);
  // The smallest layout that holds every point: the largest island_entries and the longest label.
  static RowLayout fit(std::span<const PlanPoint> points, std::vector<std::string> axes);

  int island_entries() const { return island_entries_; }
  const std::vector<std::string>& axes() const { return axes_; }
  std::size_t axis_label_width() const { return axis_label_width_; }
  const std::vector<FileColumn>& columns() const { return columns_; }
  std::vector<std::string> column_names() const;

  // The point's cells in column order. Throws ResultsError when the point does not fit this layout
  // (more island entries, another number of axis labels, a text longer than its column).
  std::vector<CellValue> cells(const PlanPoint& point) const;
  // The checks cells() makes: the point's island entries and labels fit (check_shape), a text cell fits its column.
  void check_shape(const PlanPoint& point) const;
  void check_shape(std::uint64_t index, int island_entries, std::size_t labels) const;
  static void check_text(const PlanPoint& point, const FileColumn& column, const std::string& value);
  static void check_text(std::uint64_t index, const FileColumn& column, std::string_view value);
  Row row(const PlanPoint& point) const;
  Table table(std::span<const PlanPoint> points) const;

private:
  int island_entries_;
  std::vector<std::string> axes_;
  std::size_t axis_label_width_;
  std::vector<FileColumn> columns_;
};

}  // namespace shardmeter::results
