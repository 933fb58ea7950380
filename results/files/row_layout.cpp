#include "results/files/row_layout.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "results/errors.hpp"
#include "model/spec/metrics.hpp"
#include "results/columns.hpp"

namespace shardmeter::results {

namespace {

// A column's type is the alternative its getter returns (every getter returns one fixed alternative).
ColumnType type_of(const CellValue& probe) {
  if (std::holds_alternative<std::int64_t>(probe)) return ColumnType::int64;
  if (std::holds_alternative<double>(probe)) return ColumnType::float64;
  if (std::holds_alternative<bool>(probe)) return ColumnType::boolean;
  return ColumnType::text;
}

FileColumn typed(std::string name, std::string unit, std::function<CellValue(const PlanPoint&)> get) {
  const ColumnType type = type_of(get(PlanPoint{}));
  const std::size_t width = type == ColumnType::text ? RowLayout::kNameWidth : 0;
  return FileColumn{std::move(name), type, std::move(unit), width, std::move(get)};
}

FileColumn from_scenario(const ScenarioColumn& c) {
  auto view = c.view;
  const int island = c.island;
  FileColumn f = typed(c.name, std::string(c.unit), [view, island](const PlanPoint& p) { return to_value(view(p.scenario, island)); });
  f.source = FileColumn::Source::scenario;
  f.scenario_view = view;
  f.island = island;
  return f;
}

FileColumn from_estimate(const EstimateColumn& c) {
  auto view = c.view;
  const int island = std::max(c.island, 0);
  FileColumn f = typed(c.name, std::string(c.unit), [view, island](const PlanPoint& p) { return to_value(view(p.estimate, island)); });
  f.source = FileColumn::Source::estimate;
  f.estimate_view = view;
  f.island = island;
  return f;
}

}  // namespace

std::string axis_column_name(std::string_view axis) { return std::string(kAxisPrefix) + std::string(axis); }

RowLayout::RowLayout(int island_entries, std::vector<std::string> axes, std::size_t axis_label_width)
    : island_entries_(std::clamp(island_entries, 0, model::kMaxIslands)),
      axes_(std::move(axes)),
      axis_label_width_(std::max<std::size_t>(axis_label_width, 1)) {
  columns_.push_back(FileColumn{"index", ColumnType::uint64, "index", 0,
                                [](const PlanPoint& p) { return CellValue{static_cast<std::int64_t>(p.index)}; }});
  std::vector<ScenarioColumn> scenario = scenario_columns(island_entries_);
  for (ScenarioColumn& c : scenario_detail_columns(island_entries_)) scenario.push_back(std::move(c));
  // Job-wide fields first, then all fields of island 0, of island 1, ...
  std::stable_sort(scenario.begin(), scenario.end(),
                   [](const ScenarioColumn& a, const ScenarioColumn& b) { return a.island < b.island; });
  for (const ScenarioColumn& c : scenario) columns_.push_back(from_scenario(c));
  for (const model::Metric& c : model::metrics()) {
    auto get = c.get;
    if (c.unit == units::kBoolean)
      columns_.push_back(FileColumn{std::string(c.name), ColumnType::boolean, std::string(c.unit), 0,
                                    [get](const PlanPoint& p) { return CellValue{get(p.estimate) != 0}; }, get,
                                    FileColumn::Source::metric});
    else
      columns_.push_back(FileColumn{std::string(c.name), ColumnType::float64, std::string(c.unit), 0,
                                    [get](const PlanPoint& p) { return CellValue{get(p.estimate)}; }, get,
                                    FileColumn::Source::metric});
  }
  for (const EstimateColumn& c : estimate_detail_columns(island_entries_)) columns_.push_back(from_estimate(c));
  for (std::size_t k = 0; k < axes_.size(); ++k) {
    FileColumn f{axis_column_name(axes_[k]), ColumnType::text, std::string(units::kLabel), axis_label_width_,
                 [k](const PlanPoint& p) { return CellValue{p.labels.at(k)}; }};
    f.source = FileColumn::Source::label;
    f.label = k;
    columns_.push_back(std::move(f));
  }
}

RowLayout RowLayout::fit(std::span<const PlanPoint> points, std::vector<std::string> axes) {
  int islands = 0;
  std::size_t width = 1;
  for (const PlanPoint& p : points) {
    islands = std::max(islands, p.scenario.cluster.island_entries);
    for (const std::string& label : p.labels) width = std::max(width, label.size());
  }
  return RowLayout(islands, std::move(axes), width);
}

std::vector<std::string> RowLayout::column_names() const {
  std::vector<std::string> names;
  names.reserve(columns_.size());
  for (const FileColumn& c : columns_) names.push_back(c.name);
  return names;
}

void RowLayout::check_shape(const PlanPoint& point) const {
  check_shape(point.index, point.scenario.cluster.island_entries, point.labels.size());
}

void RowLayout::check_shape(std::uint64_t index, int island_entries, std::size_t labels) const {
  if (island_entries > island_entries_)
    throw ResultsError(fmt::format("candidate {} has {} island entries; the file has columns for {}", index,
                                   island_entries, island_entries_));
  if (labels != axes_.size())
    throw ResultsError(fmt::format("candidate {} has {} axis labels; the search has {} axes", index, labels,
                                   axes_.size()));
}

void RowLayout::check_text(const PlanPoint& point, const FileColumn& column, const std::string& value) {
  check_text(point.index, column, value);
}

void RowLayout::check_text(std::uint64_t index, const FileColumn& column, std::string_view value) {
  if (value.size() > column.text_width)
    throw ResultsError(fmt::format("candidate {}: `{}` = \"{}\" is longer than the column's {} bytes", index,
                                   column.name, value, column.text_width));
}

std::vector<CellValue> RowLayout::cells(const PlanPoint& point) const {
  check_shape(point);
  std::vector<CellValue> out;
  out.reserve(columns_.size());
  for (const FileColumn& c : columns_) {
    out.push_back(c.get(point));
    if (c.type == ColumnType::text) check_text(point, c, std::get<std::string>(out.back()));
  }
  return out;
}

Row RowLayout::row(const PlanPoint& point) const {
  std::vector<CellValue> values = cells(point);
  Row row;
  for (std::size_t i = 0; i < columns_.size(); ++i) row.emplace(columns_[i].name, std::move(values[i]));
  return row;
}

Table RowLayout::table(std::span<const PlanPoint> points) const {
  Table t{column_names(), {}, {}};
  for (const FileColumn& c : columns_) t.units.push_back(c.unit);
  t.rows.reserve(points.size());
  for (const PlanPoint& p : points) t.rows.push_back(row(p));
  return t;
}

}  // namespace shardmeter::results
