#include "src/sweep/sweep_report.hpp"
#include "model/spec/enum_names.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/spec/units.hpp"
#include "model/spec/metrics.hpp"
#include "results/markup.hpp"
#include "src/text/text_format.hpp"
#include "src/text/text_table.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

std::string crossing_status_name(CrossingStatus s) {
  switch (s) {
    case CrossingStatus::crosses: return "crosses";
    case CrossingStatus::never: return "never";
    case CrossingStatus::always: return "always";
    case CrossingStatus::no_points: return "no_points";
  }
  return "unknown";
}

nlohmann::ordered_json number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

// The result column: "ok", or why the point cannot run.
std::string result_text(const m::Estimate& e) {
  if (e.feasible) return "ok";
  return std::string(model::enum_name(e.reject_reason));
}

}  // namespace

std::string sweep_heading(const std::string& scenario_name, const std::vector<AxisSpec>& axes, std::uint64_t points,
                          std::uint64_t feasible, const std::string& replanned_for) {
  std::string out = fmt::format("shardmeter sweep: {}\n  {} point{} over ", scenario_name, points, points == 1 ? "" : "s");
  for (std::size_t k = 0; k < axes.size(); ++k)
    out += fmt::format("{}{} ({} value{})", k > 0 ? " x " : "", axes[k].key, axes[k].values.size(),
                       axes[k].values.size() == 1 ? "" : "s");
  out += fmt::format("; {} feasible\n", feasible);
  out += !replanned_for.empty()
             ? fmt::format("Re-planned: each point is the best plan of the scenario's search: space for {} "
                           "(--replan)\n\n", replanned_for)
             : std::string("Layout fixed: every point keeps the scenario's parallelism, batch and plan (use --replan "
                           "to re-plan each point with its search: space)\n\n");
  return out;
}

std::string sweep_analysis_lines(const std::vector<AxisSpec>& axes, int knee_axis,
                                 const std::vector<SeriesLine>& knees, const std::vector<SeriesLine>& transitions) {
  std::string out;
  if (knee_axis >= 0) {
    out += fmt::format("Island-size knee along {} (the size with the most effective tokens/s per dollar of total cost,\n"
                       "docs/search.md \"The knee\"; past it, each larger size adds less speed than cost):\n",
                       axes[static_cast<std::size_t>(knee_axis)].key);
    for (const SeriesLine& k : knees) out += fmt::format("  {}{}\n", k.fixed.empty() ? "" : "[" + k.fixed + "] ", k.text);
  }
  out += fmt::format("Compute/communication transition along {} (exposed communication share of the step vs 50 %):\n",
                     axes.back().key);
  for (const SeriesLine& t : transitions) out += fmt::format("  {}{}\n", t.fixed.empty() ? "" : "[" + t.fixed + "] ", t.text);
  return out;
}

bool table_waits(const model::Estimate& e) { return e.feasible && e.compute_utilization < 0.9995; }
bool table_egress(const model::Estimate& e) { return e.egress_usd_total > 0; }

std::vector<TextColumn> sweep_table_columns(const std::vector<AxisSpec>& axes, const TableShape& shape) {
  std::vector<TextColumn> cols;
  for (const AxisSpec& a : axes) cols.push_back(TextColumn{a.key, Align::left, {}});
  std::vector<std::string> headers = {"result", "step time", "tokens/s", "tok/s/GPU", "MFU"};
  if (shape.waits) headers.emplace_back("busy");
  headers.insert(headers.end(), {"comm", "mem/GPU", "$/M tok", "total cost"});
  if (shape.egress) headers.emplace_back("egress");
  headers.insert(headers.end(), {"days", "bottleneck"});
  for (const std::string& h : headers)
    cols.push_back(TextColumn{h, h == "result" || h == "bottleneck" ? Align::left : Align::right, {}});
  if (shape.knees) cols.push_back(TextColumn{"", Align::left, {}});
  return cols;
}

std::vector<std::string> sweep_table_cells(std::span<const std::string> labels, const model::Estimate& e, bool no_plan,
                                           bool knee, const TableShape& shape) {
  std::vector<std::string> cells(labels.begin(), labels.end());
  const bool ran = e.reject_reason == m::RejectReason::none && !no_plan;
  const bool evaluated = ran || e.reject_reason == m::RejectReason::out_of_memory ||
                         e.reject_reason == m::RejectReason::goodput_below_floor;
  const auto metric = [&](const std::string& text) { return ran ? text : std::string("-"); };
  cells.push_back(no_plan ? "no plan" : result_text(e));
  cells.push_back(metric(seconds(e.step_time_s)));
  cells.push_back(metric(grouped(e.tokens_per_s)));
  cells.push_back(metric(grouped(e.tokens_per_s_per_gpu)));
  cells.push_back(metric(percent(e.mfu)));
  if (shape.waits) cells.push_back(metric(percent(e.compute_utilization)));
  cells.push_back(metric(percent(e.exposed_comm_fraction)));
  cells.push_back(evaluated ? fmt::format("{:.1f} GB", e.memory_per_gpu_bytes / m::kGB) : "-");
  cells.push_back(metric(usd(e.cost_usd_per_million_tokens)));
  cells.push_back(metric(usd(e.total_cost_usd)));
  if (shape.egress) cells.push_back(metric(usd(e.egress_usd_total)));
  cells.push_back(metric(fmt::format("{:.1f}", e.wall_clock_s / m::kSecondsPerDay)));
  cells.push_back(evaluated ? std::string(model::enum_name(e.bottleneck)) : "-");
  if (shape.knees) cells.push_back(knee ? "<- knee" : "");
  return cells;
}

std::string sweep_table_notes(const TableShape& shape) {
  std::string out;
  if (shape.waits) out += "busy: the share of GPU time not spent waiting on the WAN or on slower islands\n";
  out += "comm: the exposed communication (TP, PP, DP, WAN) as a share of the step\n";
  return out;
}

std::string format_sweep_table(const Sweep& sweep) {
  std::size_t feasible = 0;
  for (const SweepPoint& p : sweep.points) feasible += p.estimate.feasible && !p.no_plan ? 1 : 0;
  std::string out = sweep_heading(sweep.scenario_name, sweep.axes, sweep.points.size(), feasible,
                                  sweep.replanned ? sweep.replan_objective : "");
  // Egress is shown (as part of the total cost) only when some point pays for WAN traffic. `busy`
  // (compute_utilization: the share of GPU time not spent waiting on the WAN or on slower islands) is shown only
  // when some point waits; beside `comm` it would otherwise read 100 % for a communication-bound step.
  TableShape shape;
  shape.knees = sweep.knee_axis >= 0;
  for (const SweepPoint& p : sweep.points) {
    shape.waits = shape.waits || table_waits(p.estimate);
    shape.egress = shape.egress || table_egress(p.estimate);
  }
  std::vector<TextColumn> cols = sweep_table_columns(sweep.axes, shape);
  for (const SweepPoint& p : sweep.points) {
    const std::vector<std::string> cells = sweep_table_cells(p.labels, p.estimate, p.no_plan, p.knee, shape);
    for (std::size_t c = 0; c < cols.size(); ++c) cols[c].cells.push_back(cells[c]);
  }
  std::vector<std::size_t> series_starts;   // a blank line between series
  for (std::size_t r = 1; r < sweep.points.size(); ++r)
    if (sweep.points[r].series != sweep.points[r - 1].series) series_starts.push_back(r);
  out += render_table(cols, series_starts);
  out += sweep_table_notes(shape);
  out += "\n";
  out += sweep_analysis_lines(sweep.axes, sweep.knee_axis, knee_lines(sweep), transition_lines(sweep));
  return out;
}

namespace {

// The label along its series of the series' i-th feasible point.
const std::string& feasible_label(const Sweep& sweep, const SweepSeries& series, std::size_t i) {
  return sweep.points[series.feasible[i]].labels[static_cast<std::size_t>(series.axis)];
}

SeriesLine series_line(const SweepSeries& series, std::string text) {
  SeriesLine line;
  line.fixed = series.fixed;
  line.text = std::move(text);
  return line;
}

}  // namespace

std::vector<SeriesLine> knee_lines(const Sweep& sweep) {
  std::vector<SeriesLine> out;
  for (const KneeSeries& k : sweep.knees) {
    out.push_back(series_line(k.series, describe_knee(sweep, k)));
    if (k.knee.found) out.back().at = feasible_label(sweep, k.series, k.knee.point);
  }
  return out;
}

std::vector<SeriesLine> transition_lines(const Sweep& sweep) {
  std::vector<SeriesLine> out;
  for (const TransitionSeries& t : sweep.transitions) {
    SeriesLine line = series_line(t.series, describe_transition(sweep, t));
    line.status = t.transition.status;
    for (const Crossing& c : t.transition.crossings)
      line.crossings.push_back({feasible_label(sweep, t.series, c.after), feasible_label(sweep, t.series, c.after + 1),
                                c.x, c.rising});
    out.push_back(std::move(line));
  }
  return out;
}

namespace {

// The document without its points ("points": []), as sweep_json prints it.
nlohmann::ordered_json sweep_json_document(const std::string& scenario_name, const std::vector<AxisSpec>& axes,
                                           const std::string& replanned_for, int knee_axis,
                                           const std::vector<SeriesLine>& knees,
                                           const std::vector<SeriesLine>& transitions) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario_name;
  j["axes"] = nlohmann::ordered_json::array();
  for (const AxisSpec& a : axes) j["axes"].push_back({{"key", a.key}, {"values", a.values}});
  j["replanned"] = !replanned_for.empty();
  j["layout"] = !replanned_for.empty() ? "best plan of the search: space per point, for " + replanned_for
                                        : std::string("fixed");
  j["knee_axis"] = knee_axis >= 0 ? nlohmann::ordered_json(axes[static_cast<std::size_t>(knee_axis)].key)
                                  : nlohmann::ordered_json(nullptr);
  j["points"] = nlohmann::ordered_json::array();
  j["knee"] = nlohmann::ordered_json::array();
  for (const SeriesLine& k : knees) {
    nlohmann::ordered_json o;
    o["fixed"] = k.fixed;
    o["at"] = k.at ? nlohmann::ordered_json(*k.at) : nlohmann::ordered_json(nullptr);
    o["text"] = k.text;
    j["knee"].push_back(std::move(o));
  }
  j["transition"] = nlohmann::ordered_json::array();
  for (const SeriesLine& t : transitions) {
    nlohmann::ordered_json o;
    o["fixed"] = t.fixed;
    o["status"] = crossing_status_name(t.status);
    o["crossings"] = nlohmann::ordered_json::array();
    for (const LabelledCrossing& c : t.crossings)
      o["crossings"].push_back({{"after", c.after},
                                {"before", c.before},
                                {"at", c.at ? nlohmann::ordered_json(*c.at) : nlohmann::ordered_json(nullptr)},
                                {"rising", c.rising}});
    o["text"] = t.text;
    j["transition"].push_back(std::move(o));
  }
  return j;
}

nlohmann::ordered_json point_object(const std::vector<AxisSpec>& axes, std::span<const std::string> labels,
                                    std::uint64_t index, const model::Estimate& e, const JsonPointMarks& marks) {
  nlohmann::ordered_json o;
  for (std::size_t k = 0; k < axes.size(); ++k) o["axis:" + axes[k].key] = labels[k];
  o["index"] = index;
  o["reject_reason"] = std::string(model::enum_name(e.reject_reason));
  o["bottleneck"] = std::string(model::enum_name(e.bottleneck));
  for (const model::Metric& c : model::metrics()) o[std::string(c.name)] = number(c.get(e));
  o["knee"] = marks.knee;
  o["no_plan"] = marks.no_plan;
  o["comm_transition"] = *marks.comm_transition;
  return o;
}

// The points array sits at depth 1 of the document: its members are indented by 4.
constexpr std::string_view kPointIndent = "    ";

}  // namespace

std::string sweep_json(const Sweep& sweep) {
  nlohmann::ordered_json j = sweep_json_document(sweep.scenario_name, sweep.axes,
                                                 sweep.replanned ? sweep.replan_objective : "", sweep.knee_axis,
                                                 knee_lines(sweep), transition_lines(sweep));
  for (const SweepPoint& p : sweep.points)
    j["points"].push_back(point_object(sweep.axes, p.labels, p.index, p.estimate,
                                       JsonPointMarks{p.knee, p.no_plan, &p.comm_transition}));
  return results::json_text(j);
}

void write_sweep_json(const Sweep& sweep, std::ostream& out) {
  const JsonAround around = sweep_json_around(sweep.scenario_name, sweep.axes,
                                              sweep.replanned ? sweep.replan_objective : "", sweep.knee_axis,
                                              knee_lines(sweep), transition_lines(sweep));
  out << around.before;
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    const SweepPoint& p = sweep.points[i];
    out << sweep_json_point_separator(i)
        << sweep_json_point(sweep.axes, p.labels, p.index, p.estimate, JsonPointMarks{p.knee, p.no_plan, &p.comm_transition});
  }
  out << sweep_json_points_end(sweep.points.size()) << around.after;
}

JsonAround sweep_json_around(const std::string& scenario_name, const std::vector<AxisSpec>& axes,
                             const std::string& replanned_for, int knee_axis, const std::vector<SeriesLine>& knees,
                             const std::vector<SeriesLine>& transitions) {
  const std::string text =
      results::json_text(sweep_json_document(scenario_name, axes, replanned_for, knee_axis, knees, transitions));
  // A member of the top-level object is indented by 2; a quote inside a string value is escaped, so this is the key.
  static constexpr std::string_view kEmpty = "\n  \"points\": []";
  const std::size_t at = text.find(kEmpty);
  if (at == std::string::npos || text.find(kEmpty, at + 1) != std::string::npos)
    throw std::logic_error("sweep --json: the document has no single empty points array");
  const std::size_t open = at + kEmpty.size() - 2;   // the "[]"
  return JsonAround{text.substr(0, open), text.substr(open + 2)};
}

std::string sweep_json_point(const std::vector<AxisSpec>& axes, std::span<const std::string> labels,
                             std::uint64_t index, const model::Estimate& estimate, const JsonPointMarks& marks) {
  // json_text indents by 2 from column 0 and ends with a newline; inside the array every line is 4 further in.
  std::string text = results::json_text(point_object(axes, labels, index, estimate, marks));
  text.pop_back();
  std::string out(kPointIndent);
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    out += c;
    if (c == '\n') out += kPointIndent;
  }
  return out;
}

std::string sweep_json_point_separator(std::uint64_t i) { return i == 0 ? "[\n" : ",\n"; }

std::string sweep_json_points_end(std::uint64_t count) { return count == 0 ? "[]" : "\n  ]"; }

}  // namespace shardmeter::cli
