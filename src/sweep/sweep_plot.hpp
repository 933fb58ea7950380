#pragma once
// `sweep --plot`: throughput per GPU and cost per million tokens against the swept (last) axis, one line per value
// of the other axis, with the island-size knee and the compute/communication transition drawn as labelled vertical
// lines. Two stacked panels in one standalone SVG document (results/report/svg_plot.hpp renders each).
#include <string>

#include "src/sweep/sweep.hpp"

namespace shardmeter::cli {

std::string sweep_plot_svg(const Sweep& sweep);

}  // namespace shardmeter::cli
