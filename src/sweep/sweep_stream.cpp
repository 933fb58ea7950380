#include "src/sweep/sweep_stream.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string_view>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "model/job/evaluate.hpp"
#include "model/spec/enum_names.hpp"
#include "results/errors.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/table_hdf5.hpp"
#include "results/files/atomic_file.hpp"
#include "results/files/csv.hpp"
#include "results/files/row_layout.hpp"
#include "src/sweep/sweep.hpp"
#include "src/sweep/sweep_analysis.hpp"
#include "src/sweep/sweep_output.hpp"
#include "src/text/text_table.hpp"

namespace shardmeter::cli {

namespace {

// A feasible point of a series, as the analyses read it.
struct Sample {
  std::uint32_t value = 0;   // its value index along the series axis
  double cost = 0;           // total_cost_usd
  double speed = 0;          // effective_tokens_per_s
  double share = 0;          // exposed_comm_fraction
};

// Walks the points in sweep order (first axis outermost), with a reusable scenario.
class PointWalk {
public:
  PointWalk(const search::Space& space, const std::vector<AxisSpec>& axes)
      : space_(space), n0_(axes[0].values.size()), n1_(axes.size() == 2 ? axes[1].values.size() : 1),
        two_(axes.size() == 2) {}

  template <typename Visit>   // visit(a, b, index, estimate, scenario)
  void run(Visit&& visit) const {
    for (std::uint32_t a = 0; a < n0_; ++a)
      for (std::uint32_t b = 0; b < n1_; ++b) {
        const std::uint64_t index = index_of(a, b);
        const model::Scenario scenario = space_.scenario(index);
        visit(a, b, index, model::evaluate(scenario), scenario);
      }
  }
  std::uint64_t index_of(std::uint32_t a, std::uint32_t b) const {
    const std::uint32_t two[2] = {a, b};
    return space_.index_of(std::span<const std::uint32_t>(two, two_ ? 2 : 1));
  }
  std::size_t n0() const { return n0_; }
  std::size_t n1() const { return n1_; }

private:
  const search::Space& space_;
  std::size_t n0_, n1_;
  bool two_;
};

}  // namespace

StreamedSweep analyse_streamed_sweep(const search::Space& space, const std::string& scenario_name,
                                     const std::vector<AxisSpec>& axes, bool table) {
  StreamedSweep out;
  out.scenario_name = scenario_name;
  out.axes = axes;
  out.knee_axis = sweep_knee_axis(axes);
  const PointWalk walk(space, axes);
  const int last = static_cast<int>(axes.size()) - 1;
  const bool strided_knee = out.knee_axis == 0 && axes.size() == 2;   // the knee runs along the first of two axes
  std::vector<std::optional<double>> last_numbers;
  for (const std::string& label : axes.back().values) last_numbers.push_back(label_number(label));

  // The point of series `g` (the value of the other axis) at value `v` along axis `along`.
  const auto index_at = [&](int along, std::size_t g, std::uint32_t v) {
    if (axes.size() == 1) return walk.index_of(v, 0);
    return along == 1 ? walk.index_of(static_cast<std::uint32_t>(g), v) : walk.index_of(v, static_cast<std::uint32_t>(g));
  };
  const auto view = [&](int along, std::size_t g, const std::vector<Sample>& samples) {
    return SeriesPoints{
        samples.size(),
        [&, along](std::size_t i) { return axes[static_cast<std::size_t>(along)].values[samples[i].value]; },
        [&, along, g](std::size_t i) { return model::evaluate(space.scenario(index_at(along, g, samples[i].value))); }};
  };
  const auto add_knee = [&](int along, std::size_t g, const std::vector<Sample>& samples) {
    std::vector<double> cost, speed;
    for (const Sample& s : samples) cost.push_back(s.cost), speed.push_back(s.speed);
    const Knee knee = find_knee(cost, speed);
    SeriesLine line;
    line.fixed = series_fixed(axes, along, g);
    line.text = describe_knee(knee, view(along, g, samples));
    if (knee.found) line.at = axes[static_cast<std::size_t>(along)].values[samples[knee.point].value];
    out.knees.push_back(std::move(line));
    out.knee_index.push_back(knee.found ? std::optional(index_at(along, g, samples[knee.point].value)) : std::nullopt);
  };

  // The printed table: every column that may be shown (as if some point waited and some paid egress); its widths.
  TableShape widest;
  widest.waits = widest.egress = true;
  widest.knees = out.knee_axis >= 0;
  const std::vector<TextColumn> widest_columns = sweep_table_columns(axes, widest);
  std::vector<std::size_t> widths;
  for (const TextColumn& c : widest_columns) widths.push_back(c.header.size());
  std::vector<std::string> labels(axes.size());

  std::vector<std::vector<Sample>> columns(strided_knee ? walk.n1() : 0);
  std::vector<Sample> row;   // the current series along the last axis
  walk.run([&](std::uint32_t a, std::uint32_t b, std::uint64_t, const model::Estimate& e, const model::Scenario& s) {
    ++out.points;
    out.island_entries = std::max(out.island_entries, s.cluster.island_entries);
    if (!e.feasible) ++out.rejected[std::string(model::enum_name(e.reject_reason))];
    if (table) {
      out.table_shape.waits = out.table_shape.waits || table_waits(e);
      out.table_shape.egress = out.table_shape.egress || table_egress(e);
      labels[0] = axes[0].values[a];
      if (axes.size() == 2) labels[1] = axes[1].values[b];
      const std::vector<std::string> cells = sweep_table_cells(labels, e, false, false, widest);
      for (std::size_t c = 0; c < cells.size(); ++c) widths[c] = std::max(widths[c], cells[c].size());
    }
    if (e.feasible) {
      ++out.feasible;
      row.push_back(Sample{axes.size() == 2 ? b : a, e.total_cost_usd, e.effective_tokens_per_s, e.exposed_comm_fraction});
      if (strided_knee) columns[b].push_back(Sample{a, e.total_cost_usd, e.effective_tokens_per_s, e.exposed_comm_fraction});
    }
    if (axes.size() == 2 ? b + 1 < walk.n1() : a + 1 < walk.n0()) return;   // the series goes on
    const std::size_t g = axes.size() == 2 ? a : 0;
    std::vector<std::optional<double>> x;
    std::vector<double> share;
    for (const Sample& p : row) x.push_back(last_numbers[p.value]), share.push_back(p.share);
    const Transition t = find_transition(x, share, kTransitionLevel);
    SeriesLine line;
    line.fixed = series_fixed(axes, last, g);
    line.text = describe_transition(t, view(last, g, row));
    line.status = t.status;
    const auto label = [&](std::size_t i) { return axes.back().values[row[i].value]; };
    for (const Crossing& c : t.crossings) line.crossings.push_back({label(c.after), label(c.after + 1), c.x, c.rising});
    out.transitions.push_back(std::move(line));
    if (out.knee_axis == last) add_knee(last, g, row);
    row.clear();
  });
  for (std::size_t g = 0; g < columns.size(); ++g) {
    add_knee(0, g, columns[g]);
    std::vector<Sample>().swap(columns[g]);
  }
  if (table) {
    out.table_shape.knees = widest.knees;
    if (std::any_of(out.knee_index.begin(), out.knee_index.end(), [](const auto& k) { return k.has_value(); }))
      widths.back() = std::max(widths.back(), std::string_view("<- knee").size());
    // The columns shown are those of the widest shape but `busy` and `egress` where no point needs them.
    std::size_t c = 0;
    for (const TextColumn& shown : sweep_table_columns(axes, out.table_shape)) {
      while (widest_columns[c].header != shown.header) ++c;
      out.table_width.push_back(widths[c++]);
    }
  }
  return out;
}

namespace {

results::RowLayout sweep_layout(const std::vector<AxisSpec>& axes, int island_entries) {
  std::vector<std::string> keys;
  std::size_t label_width = 1;
  for (const AxisSpec& a : axes) {
    keys.push_back(a.key);
    for (const std::string& v : a.values) label_width = std::max(label_width, v.size());
  }
  return results::RowLayout(island_entries, keys, label_width);   // as RowLayout::fit of every point
}

// Prints every row with print(point, marks) until `out` fails (a full device, a closed pipe): then stops, and
// returns false (main() reports the failure); true when every row was printed.
template <typename Print>
bool print_rows(SweepRows& rows, std::ostream& out, Print&& print) {
  struct Stop {};
  try {
    rows.run([&](const results::PlanPoint& p, const SweepMarks& m) {
      if (!out) throw Stop{};
      print(p, m);
    });
  } catch (const Stop&) {
    return false;
  }
  return true;
}

}  // namespace

SweepRows::SweepRows(const std::vector<AxisSpec>& axes, int island_entries, Walk walk)
    : layout_(sweep_layout(axes, island_entries)), walk_(std::move(walk)) {}

std::vector<std::string> SweepRows::columns() const {
  std::vector<std::string> out = layout_.column_names();
  for (const std::string& c : sweep_extra_columns()) out.push_back(c);
  return out;
}

std::vector<std::string> SweepRows::units() const {
  std::vector<std::string> out;
  for (const results::FileColumn& c : layout_.columns()) out.push_back(c.unit);
  for (const std::string& u : sweep_extra_units()) out.push_back(u);
  return out;
}

std::vector<results::CellValue> SweepRows::cells(const results::PlanPoint& point, const SweepMarks& marks) const {
  std::vector<results::CellValue> out = layout_.cells(point);
  append_sweep_cells(marks, out);
  return out;
}

SweepRows streamed_rows(const StreamedSweep& sweep, const search::Space& space) {
  return SweepRows(sweep.axes, sweep.island_entries, [&sweep, &space](const SweepRows::Visit& visit) {
    const PointWalk walk(space, sweep.axes);
    const int last = static_cast<int>(sweep.axes.size()) - 1;
    const bool two = sweep.axes.size() == 2;
    results::PlanPoint point;
    point.labels.resize(sweep.axes.size());
    walk.run([&](std::uint32_t a, std::uint32_t b, std::uint64_t index, const model::Estimate& e, const model::Scenario& s) {
      point.scenario = s;
      point.estimate = e;
      point.index = index;
      point.labels[0] = sweep.axes[0].values[a];
      if (two) point.labels[1] = sweep.axes[1].values[b];
      const std::size_t knee_series = sweep.knee_axis == last ? (two ? a : 0) : b;
      const bool knee = sweep.knee_axis >= 0 && sweep.knee_index[knee_series] == index;
      visit(point, SweepMarks{two ? static_cast<int>(a) : 0, knee, &sweep.transitions[two ? a : 0].text, false});
    });
  });
}

SweepRows held_rows(const Sweep& sweep) {
  int island_entries = 0;
  for (const SweepPoint& p : sweep.points)
    island_entries = std::max(island_entries, p.replanned ? p.replanned->cluster.island_entries
                                                          : sweep.space->scenario(p.index).cluster.island_entries);
  return SweepRows(sweep.axes, island_entries, [&sweep](const SweepRows::Visit& visit) {
    results::PlanPoint point;
    for (const SweepPoint& p : sweep.points) {
      point.scenario = sweep.scenario_of(p);
      point.estimate = p.estimate;
      point.index = p.index;
      point.labels = p.labels;
      visit(point, SweepMarks{p.series, p.knee, &p.comm_transition, p.no_plan});
    }
  });
}

void write_sweep_csv(SweepRows& rows, const std::string& path) {
  results::CsvStream csv(path, rows.columns(), rows.units());
  rows.run([&](const results::PlanPoint& p, const SweepMarks& m) { csv.append(rows.cells(p, m)); });
  csv.commit();
}

void write_streamed_sweep_csv(const StreamedSweep& sweep, const search::Space& space, const std::string& path) {
  SweepRows rows = streamed_rows(sweep, space);
  write_sweep_csv(rows, path);
}

void write_streamed_sweep_hdf5(const StreamedSweep& sweep, const search::Space& space, const std::string& path,
                               const SweepProvenance& provenance) {
  SweepRows rows = streamed_rows(sweep, space);
  write_sweep_hdf5(rows, path, sweep.points,
                   sweep_run_info(sweep.scenario_name, sweep.axes, sweep.points, sweep.feasible, sweep.rejected, provenance),
                   sweep_root_attributes(sweep.axes, sweep.knee_axis, "", sweep.knees, sweep.transitions, provenance));
}

void write_sweep_hdf5(SweepRows& rows, const std::string& path, std::uint64_t points, const results::RunInfo& info,
                      const results::TableAttributes& root) {
  std::vector<results::TableMember> members;   // /sweep's columns: types from the first row, widths from every row
  // As write_sweep: the front writer renames its own temporary file onto ours; /sweep is added to ours; ours is
  // renamed last.
  results::AtomicFile out(path, results::AtomicFile::Target::regular);
  try {
    results::FrontWriter front(out.temp(), rows.layout());
    front.begin_front(points);
    const std::size_t row_bytes = front.row_bytes();
    const std::size_t batch = std::max<std::size_t>(1, (1 << 20) / row_bytes);
    std::vector<std::byte> packed(batch * row_bytes);
    std::size_t buffered = 0;
    std::vector<std::string_view> labels(info.axes.size());
    rows.run([&](const results::PlanPoint& p, const SweepMarks& m) {
      const std::vector<results::CellValue> cells = rows.cells(p, m);
      for (std::size_t k = 0; k < labels.size(); ++k) labels[k] = p.labels[k];
      front.pack_row(results::RowView{p.scenario, p.estimate, p.index, labels}, packed.data() + buffered * row_bytes);
      if (++buffered == batch) {
        front.append_front(packed);
        buffered = 0;
      }
      if (members.empty()) {
        const std::vector<std::string> names = rows.columns();
        for (std::size_t c = 0; c < names.size(); ++c) members.push_back({names[c], results::cell_kind(cells[c]), 1});
      }
      results::widen_text_members(members, cells);
    });
    front.append_front(std::span(packed).first(buffered * row_bytes));
    front.finish(info, {});

    results::TableDatasetWriter table(out.temp(), "sweep", std::move(members), rows.units(), points);
    rows.run([&](const results::PlanPoint& p, const SweepMarks& m) { table.append(rows.cells(p, m)); });
    table.finish(root);
  } catch (const results::ResultsError& e) {
    throw results::OutputError(path, e.what());  // name the target, not the temporary file
  }
  out.commit();
}

void write_streamed_sweep_json(const StreamedSweep& sweep, const search::Space& space, std::ostream& out) {
  const JsonAround around = sweep_json_around(sweep.scenario_name, sweep.axes, "", sweep.knee_axis, sweep.knees,
                                              sweep.transitions);
  out << around.before;
  SweepRows rows = streamed_rows(sweep, space);
  std::uint64_t count = 0;
  const bool whole = print_rows(rows, out, [&](const results::PlanPoint& p, const SweepMarks& m) {
    out << sweep_json_point_separator(count++)
        << sweep_json_point(sweep.axes, p.labels, p.index, p.estimate, JsonPointMarks{m.knee, m.no_plan, m.comm_transition});
  });
  if (whole) out << sweep_json_points_end(count) << around.after;
}

void write_streamed_sweep_table(const StreamedSweep& sweep, const search::Space& space, std::ostream& out) {
  out << sweep_heading(sweep.scenario_name, sweep.axes, sweep.points, sweep.feasible, "");
  const std::vector<TextColumn> columns = sweep_table_columns(sweep.axes, sweep.table_shape);
  std::vector<std::string> cells;
  for (const TextColumn& c : columns) cells.push_back(c.header);
  out << render_table_line(columns, sweep.table_width, cells);
  SweepRows rows = streamed_rows(sweep, space);
  int series = 0;
  const bool whole = print_rows(rows, out, [&](const results::PlanPoint& p, const SweepMarks& m) {
    if (m.series != series) out << "\n";   // a blank line between series
    series = m.series;
    out << render_table_line(columns, sweep.table_width,
                             sweep_table_cells(p.labels, p.estimate, false, m.knee, sweep.table_shape));
  });
  if (whole)
    out << sweep_table_notes(sweep.table_shape) << "\n"
      << sweep_analysis_lines(sweep.axes, sweep.knee_axis, sweep.knees, sweep.transitions);
}

}  // namespace shardmeter::cli
