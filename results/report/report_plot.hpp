#pragma once
// The report's cost-vs-throughput plot as an svg::Plot: the front as a staircase with markers coloured by GPU type
// and shaped by number of islands, the cheapest / knee / fastest plans annotated, and with a baseline a second,
// grey dashed series.
#include "results/report/report_model.hpp"
#include "results/report/svg_plot.hpp"

namespace shardmeter::results {

// Marker shape by number of islands: 1 circle, 2 square, 3 triangle, 4 diamond, 5-8 down-triangle, more a cross.
svg::Marker islands_marker(std::int64_t islands);

// Front markers carry class "marker front" and data-id "front-<row>"; baseline markers "marker baseline" and
// "baseline-<row>".
svg::Plot report_plot(const ReportModel& model);

}  // namespace shardmeter::results
