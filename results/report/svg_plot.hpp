#pragma once
// A small, dependency-free SVG chart: scatter series with per-point colours and marker shapes, optional
// straight or staircase lines, linear or log axes with "nice" ticks, a legend, point annotations with leader
// lines and labelled vertical marker lines. Pure: a Plot value in, SVG text out (well-formed XML, every text
// escaped, no scripts, fonts or external references), so reports can inline it in HTML and `sweep --plot` can
// write it as a file. API and example: results/README.md, "SVG plots".
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results/report/plot_scale.hpp"

namespace shardmeter::results::svg {

enum class Marker { circle, square, triangle, diamond, triangle_down, cross };
// How a series' points are joined (in the order given; sort them by x first).
//   steps_pre:  vertical first, then horizontal: (x0,y0) -> (x0,y1) -> (x1,y1). For a cost-vs-throughput Pareto
//               front sorted by throughput this is "cheapest cost that reaches at least x".
//   steps_post: horizontal first: (x0,y0) -> (x1,y0) -> (x1,y1).
enum class Line { none, straight, steps_pre, steps_post };

struct PlotPoint {
  double x = 0;
  double y = 0;
  std::string color;                 // fill; "" = the series colour
  std::optional<Marker> marker;      // nullopt = the series marker
  std::string tooltip;               // shown on hover (<title>); "" = none
  std::string id;                    // written as data-id="..." (tests and scripts find points by it)
};

struct Series {
  std::string name;                  // legend label
  std::string color = "#0072B2";
  Marker marker = Marker::circle;
  bool hollow = false;               // outline only (e.g. a baseline drawn under the current data)
  bool markers = true;               // false: the line only
  double marker_radius = 5.5;        // px
  Line line = Line::none;
  std::string line_color;            // "" = colour
  std::string line_dash;             // SVG stroke-dasharray, e.g. "6 4"; "" = solid
  double line_width = 1.6;
  std::string css_class;             // every marker gets class="marker <css_class>"
  bool in_legend = true;             // listed by the automatic legend
  std::vector<PlotPoint> points;
};

struct AxisSpec {
  std::string title;                 // "Throughput"
  std::string unit;                  // "tokens/s"; the axis reads "Throughput (tokens/s)", or just the title
  Scale scale = Scale::automatic;    // automatic: log when the values span a decade or more (plot_scale.hpp)
  std::function<std::string(double)> format;   // tick labels; empty = format_si (markup.hpp)
};

// A labelled point ("cheapest"), drawn with a leader line to a label placed where it overlaps least.
struct Annotation {
  double x = 0;
  double y = 0;
  std::string text;
  std::string color = "#222222";
};

// A labelled vertical line across the plot area (e.g. sweep's knee or compute/communication transition).
struct VerticalMarker {
  double x = 0;
  std::string label;
  std::string color = "#7a7a7a";
  std::string dash = "5 4";
};

struct LegendEntry {
  std::string label;
  std::string color = "#444444";
  std::optional<Marker> marker = Marker::circle;   // nullopt: no marker (a line-only entry)
  bool hollow = false;
  Line line = Line::none;            // anything but none draws a short line sample
  std::string line_dash;
};
struct LegendGroup {
  std::string title;                 // "" = no heading
  std::vector<LegendEntry> entries;
};

struct Plot {
  std::string title;                 // drawn above the plot area; "" = none
  std::string description;           // <desc> (screen readers); "" = none
  std::string id = "plot";           // prefix of the ids inside the SVG (clip path): unique per page
  AxisSpec x;
  AxisSpec y;
  std::vector<Series> series;        // drawn in order: later series on top
  std::vector<Annotation> annotations;
  std::vector<VerticalMarker> vertical_markers;
  std::vector<LegendGroup> legend;   // empty = one group listing every series with in_legend
  int width = 960;                   // px (the SVG scales with its container: viewBox)
  int height = 560;
};

// The <svg> element (with xmlns), ready to inline in HTML or XHTML.
std::string render_svg(const Plot& plot);
// A standalone .svg file: an XML declaration, then render_svg().
std::string render_svg_document(const Plot& plot);

}  // namespace shardmeter::results::svg
