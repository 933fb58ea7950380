#include "results/report/svg_shapes.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "results/markup.hpp"

namespace shardmeter::results::svg {

std::string px(double value) { return fmt::format("{:.2f}", value); }

namespace {

std::string polygon_points(const std::vector<std::pair<double, double>>& vertices) {
  std::string out;
  for (const auto& [x, y] : vertices) out += fmt::format("{}{},{}", out.empty() ? "" : " ", px(x), px(y));
  return out;
}

// The vertices of a shape whose area roughly matches a circle of radius r, so no shape looks heavier.
std::vector<std::pair<double, double>> vertices(Marker m, double cx, double cy, double r) {
  switch (m) {
    case Marker::triangle: {
      const double s = r * 1.35;
      return {{cx, cy - s}, {cx + s * 0.866, cy + s * 0.5}, {cx - s * 0.866, cy + s * 0.5}};
    }
    case Marker::triangle_down: {
      const double s = r * 1.35;
      return {{cx, cy + s}, {cx + s * 0.866, cy - s * 0.5}, {cx - s * 0.866, cy - s * 0.5}};
    }
    case Marker::diamond: {
      const double s = r * 1.3;
      return {{cx, cy - s}, {cx + s, cy}, {cx, cy + s}, {cx - s, cy}};
    }
    case Marker::cross: {
      const double a = r * 1.2, b = r * 0.38;
      return {{cx - b, cy - a}, {cx + b, cy - a}, {cx + b, cy - b}, {cx + a, cy - b}, {cx + a, cy + b},
              {cx + b, cy + b}, {cx + b, cy + a}, {cx - b, cy + a}, {cx - b, cy + b}, {cx - a, cy + b},
              {cx - a, cy - b}, {cx - b, cy - b}};
    }
    case Marker::circle:
    case Marker::square: break;
  }
  return {};
}

}  // namespace

std::string marker_element(Marker marker, double cx, double cy, double r, std::string_view fill, bool hollow,
                           std::string_view attributes, std::string_view inner) {
  const std::string colour = escape_xml(fill);
  const std::string paint = hollow ? fmt::format(R"(fill="#ffffff" fill-opacity="0.85" stroke="{}" stroke-width="1.6")", colour)
                                   : fmt::format(R"(fill="{}" stroke="#ffffff" stroke-width="1")", colour);
  const std::string extra = attributes.empty() ? std::string() : fmt::format(" {}", attributes);
  std::string start;
  std::string name;
  switch (marker) {
    case Marker::circle:
      name = "circle";
      start = fmt::format(R"(<circle cx="{}" cy="{}" r="{}" {}{})", px(cx), px(cy), px(r), paint, extra);
      break;
    case Marker::square: {
      const double s = r * 0.9;
      name = "rect";
      start = fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" {}{})", px(cx - s), px(cy - s), px(2 * s),
                          px(2 * s), paint, extra);
      break;
    }
    default:
      name = "polygon";
      start = fmt::format(R"(<polygon points="{}" {}{})", polygon_points(vertices(marker, cx, cy, r)), paint, extra);
  }
  if (inner.empty()) return start + "/>";
  return start + ">" + std::string(inner) + "</" + name + ">";
}

}  // namespace shardmeter::results::svg
