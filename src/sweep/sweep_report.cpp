#include "src/sweep/sweep_report.hpp"
#include "model/spec/enum_names.hpp"

#include <algorithm>
#include <cmath>

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

std::string format_sweep_table(const Sweep& sweep) {
  std::size_t feasible = 0;
  for (const SweepPoint& p : sweep.points) feasible += p.estimate.feasible && !p.no_plan ? 1 : 0;
  std::string out = sweep_heading(sweep.scenario_name, sweep.axes, sweep.points.size(), feasible,
                                  sweep.replanned ? sweep.replan_objective : "");

  std::vector<TextColumn> cols;
  for (const AxisSpec& a : sweep.axes) cols.push_back(TextColumn{a.key, Align::left, {}});
  // Egress is shown (as part of the total cost) only when some point pays for WAN traffic.
  const bool egress = std::any_of(sweep.points.begin(), sweep.points.end(),
                                  [](const SweepPoint& p) { return p.estimate.egress_usd_total > 0; });
  // `busy` (compute_utilization: the share of GPU time not spent waiting on the WAN or on slower islands) is shown
  // only when some point waits; beside `comm` it would otherwise read 100 % for a communication-bound step.
  const bool waits = std::any_of(sweep.points.begin(), sweep.points.end(), [](const SweepPoint& p) {
    return p.estimate.feasible && p.estimate.compute_utilization < 0.9995;
  });
  std::vector<std::string> headers = {"result", "step time", "tokens/s", "tok/s/GPU", "MFU"};
  if (waits) headers.emplace_back("busy");
  headers.insert(headers.end(), {"comm", "mem/GPU", "$/M tok", "total cost"});
  if (egress) headers.emplace_back("egress");
  headers.insert(headers.end(), {"days", "bottleneck"});
  for (const std::string& h : headers)
    cols.push_back(TextColumn{h, h == "result" || h == "bottleneck" ? Align::left : Align::right, {}});
  const bool knees = sweep.knee_axis >= 0;
  if (knees) cols.push_back(TextColumn{"", Align::left, {}});

  for (const SweepPoint& p : sweep.points) {
    const m::Estimate& e = p.estimate;
    std::size_t c = 0;
    for (const std::string& label : p.labels) cols[c++].cells.push_back(label);
    const bool ran = e.reject_reason == m::RejectReason::none && !p.no_plan;
    const bool evaluated = ran || e.reject_reason == m::RejectReason::out_of_memory ||
                           e.reject_reason == m::RejectReason::goodput_below_floor;
    const auto metric = [&](const std::string& text) { return ran ? text : std::string("-"); };
    cols[c++].cells.push_back(p.no_plan ? "no plan" : result_text(e));
    cols[c++].cells.push_back(metric(seconds(e.step_time_s)));
    cols[c++].cells.push_back(metric(grouped(e.tokens_per_s)));
    cols[c++].cells.push_back(metric(grouped(e.tokens_per_s_per_gpu)));
    cols[c++].cells.push_back(metric(percent(e.mfu)));
    if (waits) cols[c++].cells.push_back(metric(percent(e.compute_utilization)));
    cols[c++].cells.push_back(metric(percent(e.exposed_comm_fraction)));
    cols[c++].cells.push_back(evaluated ? fmt::format("{:.1f} GB", e.memory_per_gpu_bytes / m::kGB) : "-");
    cols[c++].cells.push_back(metric(usd(e.cost_usd_per_million_tokens)));
    cols[c++].cells.push_back(metric(usd(e.total_cost_usd)));
    if (egress) cols[c++].cells.push_back(metric(usd(e.egress_usd_total)));
    cols[c++].cells.push_back(metric(fmt::format("{:.1f}", e.wall_clock_s / m::kSecondsPerDay)));
    cols[c++].cells.push_back(evaluated ? std::string(model::enum_name(e.bottleneck)) : "-");
    if (knees) cols[c++].cells.push_back(p.knee ? "<- knee" : "");
  }

  std::vector<std::size_t> series_starts;   // a blank line between series
  for (std::size_t r = 1; r < sweep.points.size(); ++r)
    if (sweep.points[r].series != sweep.points[r - 1].series) series_starts.push_back(r);
  out += render_table(cols, series_starts);
  if (waits) out += "busy: the share of GPU time not spent waiting on the WAN or on slower islands\n";
  out += "comm: the exposed communication (TP, PP, DP, WAN) as a share of the step\n";

  out += "\n";
  std::vector<SeriesLine> knee_lines, transition_lines;
  for (const KneeSeries& k : sweep.knees) knee_lines.push_back({k.series.fixed, describe_knee(sweep, k)});
  for (const TransitionSeries& t : sweep.transitions) transition_lines.push_back({t.series.fixed, describe_transition(sweep, t)});
  out += sweep_analysis_lines(sweep.axes, sweep.knee_axis, knee_lines, transition_lines);
  return out;
}

std::string sweep_json(const Sweep& sweep) {
  nlohmann::ordered_json j;
  j["scenario"] = sweep.scenario_name;
  j["axes"] = nlohmann::ordered_json::array();
  for (const AxisSpec& a : sweep.axes) j["axes"].push_back({{"key", a.key}, {"values", a.values}});
  j["replanned"] = sweep.replanned;
  j["layout"] = sweep.replanned ? "best plan of the search: space per point, for " + sweep.replan_objective
                                : std::string("fixed");
  j["knee_axis"] = sweep.knee_axis >= 0 ? nlohmann::ordered_json(sweep.axes[static_cast<std::size_t>(sweep.knee_axis)].key)
                                        : nlohmann::ordered_json(nullptr);
  j["points"] = nlohmann::ordered_json::array();
  for (const SweepPoint& p : sweep.points) {
    nlohmann::ordered_json o;
    for (std::size_t k = 0; k < sweep.axes.size(); ++k) o["axis:" + sweep.axes[k].key] = p.labels[k];
    o["index"] = p.index;
    o["reject_reason"] = std::string(model::enum_name(p.estimate.reject_reason));
    o["bottleneck"] = std::string(model::enum_name(p.estimate.bottleneck));
    for (const model::Metric& c : model::metrics()) o[std::string(c.name)] = number(c.get(p.estimate));
    o["knee"] = p.knee;
    o["no_plan"] = p.no_plan;
    o["comm_transition"] = p.comm_transition;
    j["points"].push_back(std::move(o));
  }
  j["knee"] = nlohmann::ordered_json::array();
  for (const KneeSeries& k : sweep.knees) {
    nlohmann::ordered_json o;
    o["fixed"] = k.series.fixed;
    o["at"] = k.knee.found ? nlohmann::ordered_json(
                                 sweep.points[k.series.feasible[k.knee.point]].labels[static_cast<std::size_t>(k.series.axis)])
                           : nlohmann::ordered_json(nullptr);
    o["text"] = describe_knee(sweep, k);
    j["knee"].push_back(std::move(o));
  }
  j["transition"] = nlohmann::ordered_json::array();
  for (const TransitionSeries& t : sweep.transitions) {
    nlohmann::ordered_json o;
    o["fixed"] = t.series.fixed;
    o["status"] = crossing_status_name(t.transition.status);
    o["crossings"] = nlohmann::ordered_json::array();
    for (const Crossing& c : t.transition.crossings) {
      const auto& s = t.series;
      o["crossings"].push_back({{"after", sweep.points[s.feasible[c.after]].labels[static_cast<std::size_t>(s.axis)]},
                                {"before", sweep.points[s.feasible[c.after + 1]].labels[static_cast<std::size_t>(s.axis)]},
                                {"at", c.x ? nlohmann::ordered_json(*c.x) : nlohmann::ordered_json(nullptr)},
                                {"rising", c.rising}});
    }
    o["text"] = describe_transition(sweep, t);
    j["transition"].push_back(std::move(o));
  }
  return results::json_text(j);
}

}  // namespace shardmeter::cli
