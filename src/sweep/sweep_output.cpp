#include "src/sweep/sweep_output.hpp"
#include "model/spec/enum_names.hpp"
#include "src/scenario/scenario_error.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "model/parallel/consistency.hpp"
#include "results/files/atomic_file.hpp"
#include "results/files/csv.hpp"
#include "results/errors.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/row_layout.hpp"
#include "results/files/table_hdf5.hpp"
#include "src/scenario/version.hpp"
#include "src/sweep/sweep_stream.hpp"

namespace shardmeter::cli {

namespace {

std::vector<std::string> axis_keys(const Sweep& sweep) {
  std::vector<std::string> keys;
  for (const AxisSpec& a : sweep.axes) keys.push_back(a.key);
  return keys;
}

std::vector<results::PlanPoint> plan_points(const Sweep& sweep) {
  std::vector<results::PlanPoint> points;
  points.reserve(sweep.points.size());
  for (const SweepPoint& p : sweep.points)
    points.push_back(results::PlanPoint{sweep.scenario_of(p), p.estimate, p.index, p.labels});
  return points;
}

// The sweep's own columns and their units.
struct ExtraColumn {
  const char* name;
  const char* unit;
  results::CellValue (*get)(const SweepMarks&);
};
const ExtraColumn kExtra[] = {
    {"sweep_series", "series", [](const SweepMarks& p) { return results::CellValue{std::int64_t{p.series}}; }},
    {"knee", "true/false", [](const SweepMarks& p) { return results::CellValue{p.knee}; }},
    {"comm_transition", "label", [](const SweepMarks& p) { return results::CellValue{*p.comm_transition}; }},
    // --replan: true where no plan of the search space meets the constraints (the row then holds the fixed
    // layout's estimate, and the analyses leave it out).
    {"no_plan", "true/false", [](const SweepMarks& p) { return results::CellValue{p.no_plan}; }},
};

SweepMarks marks_of(const SweepPoint& p) { return SweepMarks{p.series, p.knee, &p.comm_transition, p.no_plan}; }

}  // namespace

SweepFormat sweep_format(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".csv") return SweepFormat::csv;
  if (ext == ".h5" || ext == ".hdf5") return SweepFormat::hdf5;
  throw InputError("shardmeter sweep: -o " + path + ": unknown output format (use a .csv, .h5 or .hdf5 file name)");
}

std::vector<std::string> sweep_extra_columns() {
  std::vector<std::string> out;
  for (const ExtraColumn& c : kExtra) out.emplace_back(c.name);
  return out;
}

std::vector<std::string> sweep_extra_units() {
  std::vector<std::string> out;
  for (const ExtraColumn& c : kExtra) out.emplace_back(c.unit);
  return out;
}

void append_sweep_cells(const SweepMarks& marks, std::vector<results::CellValue>& cells) {
  for (const ExtraColumn& c : kExtra) cells.push_back(c.get(marks));
}

results::Table sweep_table(const Sweep& sweep) {
  const std::vector<results::PlanPoint> points = plan_points(sweep);
  results::Table table = results::RowLayout::fit(points, axis_keys(sweep)).table(points);
  for (const ExtraColumn& c : kExtra) {
    table.columns.emplace_back(c.name);
    table.units.emplace_back(c.unit);
  }
  for (std::size_t i = 0; i < sweep.points.size(); ++i)
    for (const ExtraColumn& c : kExtra) table.rows[i].emplace(c.name, c.get(marks_of(sweep.points[i])));
  return table;
}

std::vector<std::string> sweep_units(const Sweep& sweep) { return sweep_table(sweep).units; }

results::RunInfo sweep_run_info(const std::string& scenario_name, const std::vector<AxisSpec>& axes, std::uint64_t points,
                                std::uint64_t feasible, const std::map<std::string, std::uint64_t>& rejected,
                                const SweepProvenance& provenance) {
  results::RunInfo info;
  info.scenario_text = provenance.scenario_text;
  info.scenario_name = scenario_name;
  info.version = version();
  info.method = "sweep";
  info.threads = 1;
  info.space_size = points;
  info.visited = points;
  info.estimated = points;   // the sweep estimates every point
  info.feasible = feasible;
  info.rejected = rejected;
  info.elapsed_s = provenance.elapsed_s;
  for (const AxisSpec& a : axes) info.axes.push_back(a.key);
  info.created = provenance.created;
  return info;
}

results::TableAttributes sweep_root_attributes(const std::vector<AxisSpec>& axes, int knee_axis,
                                               const std::string& replanned_for, const std::vector<SeriesLine>& knees,
                                               const std::vector<SeriesLine>& transitions,
                                               const SweepProvenance& provenance) {
  results::TableAttributes root;
  root.text.emplace_back("sweep_knee_axis", knee_axis >= 0 ? axes[static_cast<std::size_t>(knee_axis)].key : "");
  root.text.emplace_back("sweep_transition_axis", axes.back().key);
  root.text.emplace_back("sweep_layout", !replanned_for.empty() ? "replanned for " + replanned_for : "fixed");
  const auto lines = [](const std::vector<SeriesLine>& series) {
    std::vector<std::string> out;
    for (const SeriesLine& s : series) out.push_back((s.fixed.empty() ? "" : "[" + s.fixed + "] ") + s.text);
    return out;
  };
  root.lists.emplace_back("sweep_knee", lines(knees));
  root.lists.emplace_back("sweep_transition", lines(transitions));
  root.lists.emplace_back("sweep_overrides", provenance.overrides);
  return root;
}

void write_sweep(const Sweep& sweep, const std::string& path, const SweepProvenance& provenance) {
  const SweepFormat format = sweep_format(path);
  // Through the streamed sweep's writers (src/sweep/sweep_stream.hpp), a row at a time from the held points.
  SweepRows rows = held_rows(sweep);
  if (format == SweepFormat::csv) {
    write_sweep_csv(rows, path);
    return;
  }
  std::uint64_t feasible = 0;
  std::map<std::string, std::uint64_t> rejected;
  for (const SweepPoint& p : sweep.points) {
    if (p.estimate.feasible) ++feasible;
    else ++rejected[std::string(model::enum_name(p.estimate.reject_reason))];
  }
  write_sweep_hdf5(rows, path, sweep.points.size(),
                   sweep_run_info(sweep.scenario_name, sweep.axes, sweep.points.size(), feasible, rejected, provenance),
                   sweep_root_attributes(sweep.axes, sweep.knee_axis, sweep.replanned ? sweep.replan_objective : "",
                                         knee_lines(sweep), transition_lines(sweep), provenance));
}

}  // namespace shardmeter::cli
