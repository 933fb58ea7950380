#include "src/sweep/sweep_stream.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/job/evaluate.hpp"
#include "results/files/csv.hpp"
#include "results/files/row_layout.hpp"
#include "src/sweep/sweep.hpp"
#include "src/sweep/sweep_analysis.hpp"
#include "src/sweep/sweep_output.hpp"

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
                                     const std::vector<AxisSpec>& axes) {
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
    out.knees.push_back({series_fixed(axes, along, g), describe_knee(knee, view(along, g, samples))});
    out.knee_index.push_back(knee.found ? std::optional(index_at(along, g, samples[knee.point].value)) : std::nullopt);
  };

  std::vector<std::vector<Sample>> columns(strided_knee ? walk.n1() : 0);
  std::vector<Sample> row;   // the current series along the last axis
  walk.run([&](std::uint32_t a, std::uint32_t b, std::uint64_t, const model::Estimate& e, const model::Scenario& s) {
    ++out.points;
    out.island_entries = std::max(out.island_entries, s.cluster.island_entries);
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
    out.transitions.push_back({series_fixed(axes, last, g), describe_transition(t, view(last, g, row))});
    if (out.knee_axis == last) add_knee(last, g, row);
    row.clear();
  });
  for (std::size_t g = 0; g < columns.size(); ++g) {
    add_knee(0, g, columns[g]);
    std::vector<Sample>().swap(columns[g]);
  }
  return out;
}

void write_streamed_sweep_csv(const StreamedSweep& sweep, const search::Space& space, const std::string& path) {
  std::vector<std::string> keys;
  std::size_t label_width = 1;
  for (const AxisSpec& a : sweep.axes) {
    keys.push_back(a.key);
    for (const std::string& v : a.values) label_width = std::max(label_width, v.size());
  }
  const results::RowLayout layout(sweep.island_entries, keys, label_width);   // as RowLayout::fit of every point
  std::vector<std::string> columns = layout.column_names(), units;
  for (const results::FileColumn& c : layout.columns()) units.push_back(c.unit);
  for (const std::string& c : sweep_extra_columns()) columns.push_back(c);
  for (const std::string& u : sweep_extra_units()) units.push_back(u);
  results::CsvStream csv(path, std::move(columns), std::move(units));

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
    std::vector<results::CellValue> cells = layout.cells(point);
    const std::size_t knee_series = sweep.knee_axis == last ? (two ? a : 0) : b;
    const bool knee = sweep.knee_axis >= 0 && sweep.knee_index[knee_series] == index;
    append_sweep_cells(SweepMarks{two ? static_cast<int>(a) : 0, knee, &sweep.transitions[two ? a : 0].text, false},
                       cells);
    csv.append(cells);
  });
  csv.commit();
}

std::string format_streamed_sweep(const StreamedSweep& sweep, const std::string& path) {
  std::string out = sweep_heading(sweep.scenario_name, sweep.axes, sweep.points, sweep.feasible, "");
  out += fmt::format("The {} rows are in {} (a sweep of more than {} points is streamed to its file and not printed)\n\n",
                     sweep.points, path, kMaxSweepPoints);
  out += sweep_analysis_lines(sweep.axes, sweep.knee_axis, sweep.knees, sweep.transitions);
  return out;
}

}  // namespace shardmeter::cli
