#include "results/front/pareto.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace shardmeter::results {

using model::Direction;

std::vector<std::size_t> pareto_front(std::span<const std::pair<double, double>> points, Direction first,
                                      Direction second) {
  // Both objectives as "smaller is better"; sort by (x, y, index) and sweep keeping strictly better y
  // (the standard two-objective skyline, Kung, Luccio & Preparata 1975).
  const auto sign = [](Direction d) { return d == Direction::maximize ? -1.0 : 1.0; };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!std::isnan(points[i].first) && !std::isnan(points[i].second)) order.push_back(i);
  const auto key = [&](std::size_t i) {
    return std::pair{sign(first) * points[i].first, sign(second) * points[i].second};
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  std::vector<std::size_t> front;
  double best_y = std::numeric_limits<double>::infinity();
  for (const std::size_t i : order) {
    const double y = key(i).second;
    if (front.empty() || y < best_y) {
      front.push_back(i);
      best_y = y;
    }
  }
  return front;
}

std::vector<std::size_t> pareto_front(std::span<const Row> rows, const model::Objective& first,
                                      const model::Objective& second) {
  std::vector<std::pair<double, double>> points;
  points.reserve(rows.size());
  for (const Row& r : rows) points.emplace_back(number(r, first.name()), number(r, second.name()));
  return pareto_front(points, first.direction, second.direction);
}

}  // namespace shardmeter::results
