#include "results/report/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "results/markup.hpp"
#include "results/report/svg_shapes.hpp"

namespace shardmeter::results::svg {

namespace {

constexpr std::string_view kFont = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif";
constexpr double kCharWidth = 6.6;   // average advance of a 12 px sans-serif glyph, for layout estimates

struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  double overlap_area(const Box& o) const {
    const double w = std::min(x1, o.x1) - std::max(x0, o.x0), h = std::min(y1, o.y1) - std::max(y0, o.y0);
    return w > 0 && h > 0 ? w * h : 0;
  }
};

// Pixel geometry of the plot area and the two axes.
struct Frame {
  double left, top, right, bottom;
  AxisScale x, y;
  double px_x(double v) const { return left + x.fraction(v) * (right - left); }
  double px_y(double v) const { return bottom - y.fraction(v) * (bottom - top); }
  bool visible(double vx, double vy) const {
    return std::isfinite(vx) && std::isfinite(vy) && (!x.log || vx > 0) && (!y.log || vy > 0);
  }
};

std::string dash_attribute(const std::string& dash) {
  return dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", escape_xml(dash));
}

std::string axis_label(const AxisSpec& a) { return a.unit.empty() ? a.title : a.title + " (" + a.unit + ")"; }
std::string tick_text(const AxisSpec& a, double v) { return a.format ? a.format(v) : format_si(v); }

std::vector<LegendGroup> legend_of(const Plot& plot) {
  if (!plot.legend.empty()) return plot.legend;
  LegendGroup group;
  for (const Series& s : plot.series)
    if (s.in_legend && !s.name.empty())
      group.entries.push_back(LegendEntry{s.name, s.color, s.markers ? std::optional<Marker>(s.marker) : std::nullopt,
                                          s.hollow, s.line, s.line_dash});
  if (group.entries.empty()) return {};
  return {group};
}

double legend_width(const std::vector<LegendGroup>& legend) {
  if (legend.empty()) return 0;
  std::size_t longest = 0;
  for (const LegendGroup& g : legend) {
    longest = std::max(longest, g.title.size());
    for (const LegendEntry& e : g.entries) longest = std::max(longest, e.label.size() + 4);
  }
  return std::clamp(kCharWidth * static_cast<double>(longest) + 28.0, 130.0, 280.0);
}

std::string path_of(const Frame& f, const Series& s) {
  std::string d;
  double prev_x = 0, prev_y = 0;
  bool first = true;
  for (const PlotPoint& p : s.points) {
    if (!f.visible(p.x, p.y)) continue;
    const double x = f.px_x(p.x), y = f.px_y(p.y);
    if (first) {
      d += fmt::format("M{} {}", px(x), px(y));
      first = false;
    } else if (s.line == Line::steps_pre) {
      d += fmt::format(" L{} {} L{} {}", px(prev_x), px(y), px(x), px(y));
    } else if (s.line == Line::steps_post) {
      d += fmt::format(" L{} {} L{} {}", px(x), px(prev_y), px(x), px(y));
    } else {
      d += fmt::format(" L{} {}", px(x), px(y));
    }
    prev_x = x;
    prev_y = y;
  }
  return d;
}

void draw_axes(std::string& out, const Plot& plot, const Frame& f) {
  out += "<g class=\"axes\" font-size=\"12\" fill=\"#333333\">\n";
  for (const double t : f.x.ticks) {
    const double x = f.px_x(t);
    out += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e6e6e6" stroke-width="1"/>)", px(x),
                       px(f.top), px(f.bottom));
    out += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#555555"/>)", px(x), px(f.bottom),
                       px(f.bottom + 5));
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)", px(x), px(f.bottom + 19),
                       escape_xml(tick_text(plot.x, t))) + "\n";
  }
  for (const double t : f.y.ticks) {
    const double y = f.px_y(t);
    out += fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#e6e6e6" stroke-width="1"/>)", px(y),
                       px(f.left), px(f.right));
    out += fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#555555"/>)", px(y), px(f.left - 5),
                       px(f.left));
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" dominant-baseline="middle">{}</text>)", px(f.left - 8),
                       px(y), escape_xml(tick_text(plot.y, t))) + "\n";
  }
  out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#555555" stroke-width="1"/>)",
                     px(f.left), px(f.top), px(f.right - f.left), px(f.bottom - f.top)) + "\n";
  const std::string x_title = axis_label(plot.x) + (f.x.log ? ", log scale" : "");
  const std::string y_title = axis_label(plot.y) + (f.y.log ? ", log scale" : "");
  out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="13" font-weight="600">{}</text>)",
                     px((f.left + f.right) / 2), px(f.bottom + 42), escape_xml(x_title)) + "\n";
  const double cy = (f.top + f.bottom) / 2;
  out += fmt::format(R"~(<text x="{0}" y="{1}" transform="rotate(-90 {0} {1})" text-anchor="middle" font-size="13" font-weight="600">{2}</text>)~",
                     px(18), px(cy), escape_xml(y_title)) + "\n";
  out += "</g>\n";
}

void draw_vertical_markers(std::string& out, const Plot& plot, const Frame& f) {
  for (const VerticalMarker& v : plot.vertical_markers) {
    if (!f.visible(v.x, f.y.lo) || v.x < f.x.lo || v.x > f.x.hi) continue;
    const double x = f.px_x(v.x);
    out += fmt::format(R"(<g class="vmarker"><line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" stroke-width="1.4" stroke-dasharray="{4}"/>)",
                       px(x), px(f.top), px(f.bottom), escape_xml(v.color), escape_xml(v.dash));
    out += fmt::format(R"(<text x="{}" y="{}" font-size="11" fill="{}" text-anchor="start" stroke="#ffffff" stroke-width="3" paint-order="stroke">{}</text></g>)",
                       px(x + 4), px(f.top + 13), escape_xml(v.color), escape_xml(v.label)) + "\n";
  }
}

void draw_series(std::string& out, const Plot& plot, const Frame& f) {
  out += fmt::format(R"~(<g clip-path="url(#{}-area)">)~", escape_xml(plot.id)) + "\n";
  for (const Series& s : plot.series) {
    if (s.line == Line::none || s.points.size() < 2) continue;
    out += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="{}" stroke-linejoin="round"{}/>)",
                       path_of(f, s), escape_xml(s.line_color.empty() ? s.color : s.line_color), px(s.line_width),
                       dash_attribute(s.line_dash)) + "\n";
  }
  out += "</g>\n";
  for (const Series& s : plot.series) {
    if (!s.markers) continue;
    out += fmt::format("<g class=\"series\" data-series=\"{}\">\n", escape_xml(s.name));
    for (const PlotPoint& p : s.points) {
      if (!f.visible(p.x, p.y)) continue;
      std::string attributes = fmt::format("class=\"{}\"", escape_xml(s.css_class.empty() ? "marker" : "marker " + s.css_class));
      if (!p.id.empty()) attributes += fmt::format(" data-id=\"{}\"", escape_xml(p.id));
      const std::string inner = p.tooltip.empty() ? std::string() : fmt::format("<title>{}</title>", escape_xml(p.tooltip));
      out += marker_element(p.marker.value_or(s.marker), f.px_x(p.x), f.px_y(p.y), s.marker_radius,
                            p.color.empty() ? s.color : p.color, s.hollow, attributes, inner) + "\n";
    }
    out += "</g>\n";
  }
}

// Labels go to the candidate position that overlaps least with markers, earlier labels and the frame edge.
void draw_annotations(std::string& out, const Plot& plot, const Frame& f) {
  struct Label {
    double x, y;
    std::string text;
    std::string color;
  };
  std::vector<Label> labels;   // annotations at the same pixel merge into one label ("cheapest, knee")
  for (const Annotation& a : plot.annotations) {
    if (!f.visible(a.x, a.y)) continue;
    const double x = f.px_x(a.x), y = f.px_y(a.y);
    auto same = std::find_if(labels.begin(), labels.end(),
                             [&](const Label& l) { return std::fabs(l.x - x) < 0.5 && std::fabs(l.y - y) < 0.5; });
    if (same != labels.end()) same->text += ", " + a.text;
    else labels.push_back({x, y, a.text, a.color});
  }
  std::vector<Box> taken;
  for (const Series& s : plot.series)
    for (const PlotPoint& p : s.points)
      if (s.markers && f.visible(p.x, p.y)) {
        const double x = f.px_x(p.x), y = f.px_y(p.y), r = s.marker_radius + 2;
        taken.push_back({x - r, y - r, x + r, y + r});
      }
  out += "<g class=\"annotations\" font-size=\"12\" font-weight=\"600\">\n";
  for (const Label& l : labels) {
    const double w = kCharWidth * static_cast<double>(l.text.size()) + 4, h = 15;
    struct Candidate { double dx, dy; bool left; };
    static constexpr Candidate kCandidates[] = {
        {16, -18, false}, {-16, -18, true}, {16, 24, false}, {-16, 24, true},
        {30, -40, false}, {-30, -40, true}, {30, 48, false}, {-30, 48, true}, {0, -30, false}, {0, 36, false}};
    double best_score = 1e300;
    Candidate best = kCandidates[0];
    Box best_box{};
    for (const Candidate& c : kCandidates) {
      const double x0 = c.left ? l.x + c.dx - w : l.x + c.dx;
      const Box box{x0, l.y + c.dy - h + 3, x0 + w, l.y + c.dy + 4};
      double score = 0;
      for (const Box& t : taken) score += t.overlap_area(box);
      const Box inside{f.left, f.top, f.right, f.bottom};
      score += (box.x1 - box.x0) * (box.y1 - box.y0) - inside.overlap_area(box);   // outside the frame
      score *= 100;
      score += std::hypot(c.dx, c.dy);                                              // prefer short leaders
      if (score < best_score) {
        best_score = score;
        best = c;
        best_box = box;
      }
    }
    taken.push_back(best_box);
    const double tx = l.x + best.dx, ty = l.y + best.dy;
    const double lead_y = best.dy < 0 ? ty + 3 : ty - 11;
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="1"/>)", px(l.x), px(l.y),
                       px(tx), px(lead_y), escape_xml(l.color));
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="{}" fill="{}" stroke="#ffffff" stroke-width="3.5" paint-order="stroke">{}</text>)",
                       px(tx), px(ty), best.left ? "end" : "start", escape_xml(l.color), escape_xml(l.text)) + "\n";
  }
  out += "</g>\n";
}

void draw_legend(std::string& out, const std::vector<LegendGroup>& legend, double x, double top) {
  if (legend.empty()) return;
  out += "<g class=\"legend\" font-size=\"12\" fill=\"#333333\">\n";
  double y = top + 4;
  for (const LegendGroup& g : legend) {
    if (!g.title.empty()) {
      out += fmt::format(R"(<text x="{}" y="{}" font-weight="600">{}</text>)", px(x), px(y + 10), escape_xml(g.title)) + "\n";
      y += 20;
    }
    for (const LegendEntry& e : g.entries) {
      const double cy = y + 6;
      if (e.line != Line::none)
        out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="1.8"{}/>)", px(x),
                           px(cy), px(x + 24), px(cy), escape_xml(e.color),
                           dash_attribute(e.line_dash));
      if (e.marker) out += marker_element(*e.marker, x + 12, cy, 5, e.color, e.hollow);
      out += fmt::format(R"(<text x="{}" y="{}" dominant-baseline="middle">{}</text>)", px(x + 32), px(cy),
                         escape_xml(e.label)) + "\n";
      y += 19;
    }
    y += 10;
  }
  out += "</g>\n";
}

}  // namespace

std::string render_svg(const Plot& plot) {
  const std::vector<LegendGroup> legend = legend_of(plot);
  const double legend_w = legend_width(legend);
  Frame f{};
  f.left = 92;
  f.top = plot.title.empty() ? 18 : 46;
  f.right = plot.width - (legend_w > 0 ? legend_w + 28 : 24);
  f.bottom = plot.height - 58;
  std::vector<double> xs, ys;
  for (const Series& s : plot.series)
    for (const PlotPoint& p : s.points) {
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  for (const Annotation& a : plot.annotations) {
    xs.push_back(a.x);
    ys.push_back(a.y);
  }
  for (const VerticalMarker& v : plot.vertical_markers) xs.push_back(v.x);
  f.x = make_axis_scale(xs, plot.x.scale);
  f.y = make_axis_scale(ys, plot.y.scale);

  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {0} {1}" width="{0}" height="{1}" role="img" font-family="{2}">)",
      plot.width, plot.height, kFont) + "\n";
  if (!plot.title.empty()) out += fmt::format("<title>{}</title>\n", escape_xml(plot.title));
  if (!plot.description.empty()) out += fmt::format("<desc>{}</desc>\n", escape_xml(plot.description));
  out += fmt::format(R"(<defs><clipPath id="{}-area"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath></defs>)",
                     escape_xml(plot.id), px(f.left), px(f.top), px(f.right - f.left), px(f.bottom - f.top)) + "\n";
  out += fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>)", plot.width, plot.height) + "\n";
  if (!plot.title.empty())
    out += fmt::format(R"(<text x="{}" y="28" font-size="16" font-weight="600" fill="#222222">{}</text>)", px(f.left),
                       escape_xml(plot.title)) + "\n";
  draw_axes(out, plot, f);
  draw_vertical_markers(out, plot, f);
  draw_series(out, plot, f);
  draw_annotations(out, plot, f);
  draw_legend(out, legend, f.right + 22, f.top);
  out += "</svg>\n";
  return out;
}

std::string render_svg_document(const Plot& plot) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + render_svg(plot);
}

}  // namespace shardmeter::results::svg
