#include "src/sweep/sweep_plot.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "results/markup.hpp"
#include "results/report/svg_plot.hpp"

namespace shardmeter::cli {

namespace svg = results::svg;

namespace {

constexpr std::array kColors = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};
constexpr int kPanelHeight = 420;

// The x position of a point on the last axis: its value when every label is a number, else its position (1, 2, ...).
struct XAxis {
  bool numeric = true;
  std::vector<std::string> labels;   // value labels of the last axis
  double at(std::size_t value) const {
    return numeric ? *label_number(labels[value]) : static_cast<double>(value + 1);
  }
};

XAxis x_axis(const Sweep& sweep) {
  XAxis x;
  const int last = static_cast<int>(sweep.axes.size()) - 1;
  x.labels = sweep.axes[static_cast<std::size_t>(last)].values;
  for (const std::string& label : x.labels) x.numeric = x.numeric && label_number(label).has_value();
  return x;
}

svg::Plot panel(const Sweep& sweep, const XAxis& x, const std::string& id, const std::string& title,
                const std::string& unit, double (*metric)(const model::Estimate&)) {
  svg::Plot plot;
  plot.id = id;
  plot.title = title;
  plot.height = kPanelHeight;
  plot.x.title = sweep.axes.back().key;
  if (!x.numeric) {
    plot.x.scale = svg::Scale::linear;
    const std::vector<std::string> labels = x.labels;
    plot.x.format = [labels](double v) {
      const long i = std::lround(v) - 1;
      return std::fabs(v - std::round(v)) < 1e-9 && i >= 0 && i < static_cast<long>(labels.size())
                 ? labels[static_cast<std::size_t>(i)] : std::string();
    };
  }
  plot.y.title = title;
  plot.y.unit = unit;
  const int last = static_cast<int>(sweep.axes.size()) - 1;
  for (std::size_t k = 0; k < sweep.transitions.size(); ++k) {
    const SweepSeries& series = sweep.transitions[k].series;
    svg::Series s;
    s.name = series.fixed.empty() ? title : series.fixed;
    s.color = kColors[k % kColors.size()];
    s.line = svg::Line::straight;
    s.in_legend = sweep.transitions.size() > 1;
    for (std::size_t index : series.feasible) {
      const SweepPoint& p = sweep.points[index];
      const double y = metric(p.estimate);
      if (!std::isfinite(y) || y <= 0) continue;
      svg::PlotPoint point;
      point.x = x.at(p.values[static_cast<std::size_t>(last)]);
      point.y = y;
      point.tooltip = fmt::format("{} = {}: {} {}", sweep.axes.back().key, p.labels.back(), results::format_si(y), unit);
      point.id = std::to_string(p.index);
      s.points.push_back(point);
    }
    plot.series.push_back(std::move(s));
  }
  // The knee (island-size axis along the swept axis) and the 50 % exposed-communication crossing.
  for (const KneeSeries& k : sweep.knees) {
    if (!k.knee.found || k.series.axis != last || k.knee.point >= k.series.feasible.size()) continue;
    const SweepPoint& p = sweep.points[k.series.feasible[k.knee.point]];
    plot.vertical_markers.push_back(
        {x.at(p.values[static_cast<std::size_t>(last)]), k.series.fixed.empty() ? "knee" : "knee (" + k.series.fixed + ")",
         "#B22222", "5 4"});
  }
  for (const TransitionSeries& t : sweep.transitions)
    for (const Crossing& c : t.transition.crossings)
      if (c.x && x.numeric)
        plot.vertical_markers.push_back({*c.x, t.series.fixed.empty() ? "comm 50 %" : "comm 50 % (" + t.series.fixed + ")",
                                         "#555555", "2 3"});
  return plot;
}

double tokens_per_gpu(const model::Estimate& e) { return e.tokens_per_s_per_gpu; }
double usd_per_million(const model::Estimate& e) { return e.cost_usd_per_million_tokens; }

}  // namespace

std::string sweep_plot_svg(const Sweep& sweep) {
  const XAxis x = x_axis(sweep);
  const svg::Plot top = panel(sweep, x, "throughput", "Throughput per GPU", "tokens/s", tokens_per_gpu);
  const svg::Plot bottom = panel(sweep, x, "cost", "Cost per million tokens", "USD", usd_per_million);
  const int width = top.width;
  std::string out = R"(<?xml version="1.0" encoding="UTF-8"?>)" "\n";
  out += fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {0} {1}" width="{0}" height="{1}">)",
                     width, 2 * kPanelHeight);
  out += fmt::format("<title>{}</title>", results::escape_xml("sweep of " + sweep.scenario_name));
  out += "<g>" + svg::render_svg(top) + "</g>";
  out += fmt::format(R"svg(<g transform="translate(0,{})">)svg", kPanelHeight) + svg::render_svg(bottom) + "</g>";
  out += "</svg>\n";
  return out;
}

}  // namespace shardmeter::cli
