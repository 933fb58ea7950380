#pragma once
// SVG elements for plot markers, shared by the plot area and the legend.
#include <string>
#include <string_view>

#include "results/report/svg_plot.hpp"

namespace shardmeter::results::svg {

// One marker centred on (cx, cy) with radius r (px). `attributes` is appended inside the element's start tag
// (e.g. `class="marker front" data-id="3"`, already escaped); `inner` goes between start and end tag (a <title>).
std::string marker_element(Marker marker, double cx, double cy, double r, std::string_view fill, bool hollow,
                           std::string_view attributes = "", std::string_view inner = "");

// A coordinate as SVG text, two decimals ("12.5" stays "12.50").
std::string px(double value);

}  // namespace shardmeter::results::svg
