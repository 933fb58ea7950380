#include "results/report/report_plot.hpp"

#include <algorithm>
#include <set>

#include "results/front/front_picks.hpp"
#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFrontLine = "#4d4d4d";
constexpr const char* kBaseline = "#9a9a9a";

std::string tooltip(const ReportModel& m, const ReportRow& r) {
  return "row " + std::to_string(row_number(r.row())) + ": " + r.summary() + "\n" + cost_text(m.axes, r.cost) + ", " +
         speed_text(m.axes, r.speed) + ", " + format_fixed(r.wall_clock_days(), 1) + " days, MFU " +
         format_percent(r.mfu()) + (r.uncalibrated ? "\nuncalibrated GPU type" : "");
}

// The staircase through the rows on the cost/speed front: for any speed, the cheapest cost that reaches it.
svg::Series staircase(const ReportModel& m, const std::vector<ReportRow>& rows, std::string name, const char* color,
                      std::string dash) {
  std::vector<const ReportRow*> sorted;
  for (const ReportRow& r : rows)
    if (!r.unpickable) sorted.push_back(&r);
  const auto g = [&](const ReportRow* r) { return m.axes.goodness(r->speed); };
  std::sort(sorted.begin(), sorted.end(), [&](const ReportRow* a, const ReportRow* b) {
    return g(a) < g(b) || (g(a) == g(b) && a->cost < b->cost);
  });
  svg::Series s;
  s.name = std::move(name);
  s.color = color;
  // Speed to the right when more is better (cost steps up before the point), or days to the right when fewer are.
  s.line = m.axes.speed.direction == model::Direction::maximize ? svg::Line::steps_pre : svg::Line::steps_post;
  s.line_dash = std::move(dash);
  s.markers = false;
  s.in_legend = false;
  // Keep the points no faster point undercuts: cost(t) = cheapest plan reaching at least t.
  std::vector<svg::PlotPoint> kept;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const bool dominated = std::any_of(sorted.begin() + static_cast<std::ptrdiff_t>(i) + 1, sorted.end(),
                                       [&](const ReportRow* o) { return o->cost <= sorted[i]->cost; });
    if (!dominated) kept.push_back(svg::PlotPoint{sorted[i]->speed, sorted[i]->cost, "", {}, "", ""});
  }
  // Points joined in x order.
  std::sort(kept.begin(), kept.end(), [](const svg::PlotPoint& a, const svg::PlotPoint& b) { return a.x < b.x; });
  s.points = std::move(kept);
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
  plot.description = std::string(model.axes.cost.name()) + " against " + std::string(model.axes.speed.name()) +
                     " for every feasible " + (model.sweep ? "sweep point" : "plan on the Pareto front") +
                     std::string(model.diff ? ", with the baseline in grey." : ".");
  const bool usd = model.axes.cost.metric->unit.starts_with("USD");
  plot.x = svg::AxisSpec{model.speed_title.substr(0, model.speed_title.find(" (")),
                         std::string(model.axes.speed.metric->unit), svg::Scale::automatic, {}};
  plot.y = svg::AxisSpec{model.cost_title.substr(0, model.cost_title.find(" (")),
                         std::string(model.axes.cost.metric->unit), svg::Scale::automatic,
                         usd ? std::function<std::string(double)>([](double v) { return format_usd(v); })
                             : std::function<std::string(double)>()};

  if (!model.baseline_rows.empty()) {
    plot.series.push_back(staircase(model, model.baseline_rows, "baseline front", kBaseline, "6 4"));
    svg::Series base;
    base.name = "baseline";
    base.color = kBaseline;
    base.hollow = true;
    base.marker_radius = 5;
    base.css_class = "baseline";
    for (const ReportRow& r : model.baseline_rows)
      if (!r.unpickable)
        base.points.push_back(svg::PlotPoint{r.speed, r.cost, "", islands_marker(r.island_count()),
                                             "baseline " + tooltip(model, r),
                                             "baseline-" + std::to_string(row_number(r.row()))});
    plot.series.push_back(std::move(base));
  }
  plot.series.push_back(staircase(model, model.rows, "front", kFrontLine, ""));
  svg::Series front;
  front.name = "front";
  front.css_class = "front";
  front.marker_radius = 6;
  for (const ReportRow& r : model.rows)
    if (!r.unpickable)
      front.points.push_back(svg::PlotPoint{r.speed, r.cost, gpu_color(model, r.gpu()), islands_marker(r.island_count()),
                                            tooltip(model, r), "front-" + std::to_string(row_number(r.row()))});
  plot.series.push_back(std::move(front));

  if (model.picks) {
    const auto annotate = [&](std::size_t row, const char* what) {
      const ReportRow& r = model.rows[row];
      plot.annotations.push_back(svg::Annotation{r.speed, r.cost, what, "#222222"});
    };
    annotate(model.picks->cheapest, "cheapest");
    annotate(model.picks->knee, "knee");
    annotate(model.picks->fastest, "fastest");
  }

  svg::LegendGroup gpus{"GPU type", {}};
  for (const std::string& g : model.gpu_types)
    gpus.entries.push_back(svg::LegendEntry{g, gpu_color(model, g), svg::Marker::circle, false, svg::Line::none, ""});
  std::set<std::int64_t> counts;
  for (const ReportRow& r : model.rows) counts.insert(r.island_count());
  for (const ReportRow& r : model.baseline_rows) counts.insert(r.island_count());
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
