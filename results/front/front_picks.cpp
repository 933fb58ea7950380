#include "results/front/front_picks.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "model/spec/metrics.hpp"
#include "results/front/pareto.hpp"

namespace shardmeter::results {

namespace {

using model::Direction;
using model::Objective;

// Metrics that can be the cost or the speed of a pick, each with the direction it is better in.
const std::array<Objective, 4> kCosts = {
    Objective{&model::metric("total_cost_usd"), Direction::minimize},
    Objective{&model::metric("cost_usd_per_million_tokens"), Direction::minimize},
    Objective{&model::metric("cost_usd_per_hour"), Direction::minimize},
    Objective{&model::metric("gpu_usd_total"), Direction::minimize}};
const std::array<Objective, 4> kSpeeds = {
    Objective{&model::metric("tokens_per_s"), Direction::maximize},
    Objective{&model::metric("effective_tokens_per_s"), Direction::maximize},
    Objective{&model::metric("wall_clock_days"), Direction::minimize},
    Objective{&model::metric("step_time_s"), Direction::minimize}};

template <std::size_t N>
std::optional<Objective> first_of(const std::vector<Objective>& objectives, const std::array<Objective, N>& allowed) {
  for (const Objective& o : objectives)
    for (const Objective& a : allowed)
      if (o == a) return o;
  return std::nullopt;
}

struct Point {
  std::size_t row;
  double cost, speed;
};

}  // namespace

double PickAxes::goodness(double speed_value) const {
  return speed.direction == Direction::maximize ? speed_value : 1.0 / speed_value;
}

std::string PickAxes::speed_words() const {
  if (speed.name() == "tokens_per_s") return "tokens/s";
  if (speed.name() == "effective_tokens_per_s") return "effective tokens/s";
  if (speed.name() == "wall_clock_days") return "days of wall-clock";
  if (speed.name() == "step_time_s") return "s per step";
  return std::string(speed.name());
}

PickAxes pick_axes(const std::vector<Objective>& objectives) {
  return PickAxes{first_of(objectives, kCosts).value_or(kCosts[0]), first_of(objectives, kSpeeds).value_or(kSpeeds[0])};
}

std::optional<std::string> unpickable(const Row& row, const PickAxes& axes) {
  if (row.count("feasible") != 0 && !flag(row, "feasible")) {
    const auto reason = row.find("reject_reason");
    const std::string why = reason == row.end() ? "" : " (" + format_cell(reason->second) + ")";
    return "it is not feasible" + why + ": it does not fit in GPU memory or breaks a consistency rule";
  }
  for (const Objective& o : {axes.cost, axes.speed}) {
    const double v = number(row, o.name());
    if (!std::isfinite(v) || v <= 0) return fmt::format("its {} is {}, not a positive number", o.name(), v);
  }
  return std::nullopt;
}

std::size_t knee_of(std::span<const std::pair<double, double>> points) {
  std::size_t knee = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto [c, g] = points[i];
    const auto [kc, kg] = points[knee];
    // g / c > kg / kc, compared without dividing; a relative tolerance keeps exact ties with the cheaper plan.
    const double lhs = g * kc, rhs = kg * c;
    if (lhs > rhs * (1 + 1e-12) || (std::fabs(lhs - rhs) <= rhs * 1e-12 && c < kc)) knee = i;
  }
  return knee;
}

std::optional<FrontPicks> pick_points(std::span<const PickPoint> points, const PickAxes& axes) {
  std::vector<Point> usable;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PickPoint& p = points[i];
    if (p.pickable && std::isfinite(p.cost) && std::isfinite(p.speed) && p.cost > 0 && p.speed > 0)
      usable.push_back(Point{i, p.cost, axes.goodness(p.speed)});
  }
  if (usable.empty()) return std::nullopt;
  FrontPicks picks{axes, usable.front().row, usable.front().row, usable.front().row, usable.size()};
  Point cheapest = usable.front(), fastest = usable.front();
  for (const Point& p : usable) {
    if (p.cost < cheapest.cost || (p.cost == cheapest.cost && p.speed > cheapest.speed)) cheapest = p;
    if (p.speed > fastest.speed || (p.speed == fastest.speed && p.cost < fastest.cost)) fastest = p;
  }
  picks.cheapest = cheapest.row;
  picks.fastest = fastest.row;
  // The knee is defined on the front of the two axes; a file searched for other objectives, or a sweep, may hold
  // rows off it.
  std::vector<std::pair<double, double>> values;
  for (const Point& p : usable) values.emplace_back(p.cost, p.speed);
  std::vector<std::pair<double, double>> front_values;
  std::vector<std::size_t> front_rows;
  for (const std::size_t k : pareto_front(values, Direction::minimize, Direction::maximize)) {
    front_values.push_back(values[k]);
    front_rows.push_back(usable[k].row);
  }
  picks.knee = front_rows[knee_of(front_values)];
  return picks;
}

std::optional<FrontPicks> pick_front(std::span<const Row> rows, const PickAxes& axes) {
  std::vector<PickPoint> points;
  for (const Row& r : rows) {
    const bool pickable = !unpickable(r, axes);
    points.push_back(PickPoint{pickable ? number(r, axes.cost.name()) : 0, pickable ? number(r, axes.speed.name()) : 0,
                               pickable});
  }
  return pick_points(points, axes);
}

std::optional<std::size_t> pick_by_name(const FrontPicks& picks, std::string_view name) {
  if (name == "cheapest") return picks.cheapest;
  if (name == "fastest") return picks.fastest;
  if (name == "knee") return picks.knee;
  return std::nullopt;
}

}  // namespace shardmeter::results
