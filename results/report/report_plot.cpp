#include "results/report/report_plot.hpp"

#include <algorithm>
#include <set>

#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFrontLine = "#4d4d4d";
constexpr const char* kBaseline = "#9a9a9a";

std::string tooltip(const PlanRow& r) {
  return r.summary + "\ncost " + format_usd(r.cost_usd) + ", " + format_si(r.tokens_per_s) + " tokens/s, " +
         format_fixed(r.wall_clock_days, 1) + " days, MFU " + format_percent(r.mfu);
}

// The staircase through the rows that are on the cost/throughput front, by throughput.
svg::Series staircase(const std::vector<PlanRow>& rows, std::string name, const char* color, std::string dash) {
  std::vector<const PlanRow*> sorted;
  for (const PlanRow& r : rows) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const PlanRow* a, const PlanRow* b) {
    return a->tokens_per_s < b->tokens_per_s || (a->tokens_per_s == b->tokens_per_s && a->cost_usd < b->cost_usd);
  });
  svg::Series s;
  s.name = std::move(name);
  s.color = color;
  s.line = svg::Line::steps_pre;
  s.line_dash = std::move(dash);
  s.markers = false;
  s.in_legend = false;
  // Keep the points no faster point undercuts: cost(t) = cheapest plan reaching at least t.
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const bool dominated = std::any_of(sorted.begin() + static_cast<std::ptrdiff_t>(i) + 1, sorted.end(),
                                       [&](const PlanRow* o) { return o->cost_usd <= sorted[i]->cost_usd; });
    if (!dominated) s.points.push_back(svg::PlotPoint{sorted[i]->tokens_per_s, sorted[i]->cost_usd, "", {}, "", ""});
  }
  return s;
}

}  // namespace

svg::Marker islands_marker(std::int64_t islands) {
  if (islands <= 1) return svg::Marker::circle;
  if (islands == 2) return svg::Marker::square;
  if (islands == 3) return svg::Marker::triangle;
  if (islands == 4) return svg::Marker::diamond;
  if (islands <= 8) return svg::Marker::triangle_down;
  return svg::Marker::cross;
}

svg::Plot report_plot(const ReportModel& model) {
  svg::Plot plot;
  plot.id = "front-plot";
  plot.description = "Total cost for the token budget against throughput for every plan on the Pareto front" +
                     std::string(model.diff ? ", with the baseline front in grey." : ".");
  plot.x = svg::AxisSpec{"Throughput", "tokens/s", svg::Scale::automatic, {}};
  plot.y = svg::AxisSpec{"Total cost for the token budget", "USD", svg::Scale::automatic,
                         [](double v) { return format_usd(v); }};

  if (!model.baseline_rows.empty()) {
    plot.series.push_back(staircase(model.baseline_rows, "baseline front", kBaseline, "6 4"));
    svg::Series base;
    base.name = "baseline";
    base.color = kBaseline;
    base.hollow = true;
    base.marker_radius = 5;
    base.css_class = "baseline";
    for (const PlanRow& r : model.baseline_rows)
      base.points.push_back(svg::PlotPoint{r.tokens_per_s, r.cost_usd, "", islands_marker(r.island_count),
                                           "baseline: " + tooltip(r), "baseline-" + std::to_string(r.row)});
    plot.series.push_back(std::move(base));
  }
  plot.series.push_back(staircase(model.rows, "front", kFrontLine, ""));
  svg::Series front;
  front.name = "front";
  front.css_class = "front";
  front.marker_radius = 6;
  for (const PlanRow& r : model.rows)
    front.points.push_back(svg::PlotPoint{r.tokens_per_s, r.cost_usd, gpu_color(model, r.gpu),
                                          islands_marker(r.island_count), tooltip(r), "front-" + std::to_string(r.row)});
  plot.series.push_back(std::move(front));

  if (model.picks) {
    const auto annotate = [&](std::size_t row, const char* what) {
      const PlanRow& r = model.rows[row];
      plot.annotations.push_back(svg::Annotation{r.tokens_per_s, r.cost_usd, what, "#222222"});
    };
    annotate(model.picks->cheapest, "cheapest");
    annotate(model.picks->knee, "knee");
    annotate(model.picks->fastest, "fastest");
  }

  svg::LegendGroup gpus{"GPU type", {}};
  for (const std::string& g : model.gpu_types)
    gpus.entries.push_back(svg::LegendEntry{g, gpu_color(model, g), svg::Marker::circle, false, svg::Line::none, ""});
  std::set<std::int64_t> counts;
  for (const PlanRow& r : model.rows) counts.insert(r.island_count);
  for (const PlanRow& r : model.baseline_rows) counts.insert(r.island_count);
  svg::LegendGroup shapes{"Islands", {}};
  for (const std::int64_t n : counts)
    shapes.entries.push_back(svg::LegendEntry{n == 1 ? "1 island" : std::to_string(n) + " islands", "#555555",
                                              islands_marker(n), false, svg::Line::none, ""});
  svg::LegendGroup lines{"Fronts", {}};
  lines.entries.push_back(svg::LegendEntry{"this run", kFrontLine, std::nullopt, false, svg::Line::straight, ""});
  if (!model.baseline_rows.empty())
    lines.entries.push_back(svg::LegendEntry{"baseline", kBaseline, svg::Marker::circle, true, svg::Line::straight, "6 4"});
  plot.legend = {gpus, shapes, lines};
  return plot;
}

}  // namespace shardmeter::results
