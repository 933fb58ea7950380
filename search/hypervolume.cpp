#include "search/hypervolume.hpp"

#include <algorithm>
#include <stdexcept>

namespace shardmeter::search {

double hypervolume_2d(std::span<const std::array<double, 2>> minimised, std::array<double, 2> reference) {
  std::vector<std::array<double, 2>> pts;
  for (const auto& p : minimised)
    if (p[0] < reference[0] && p[1] < reference[1]) pts.push_back(p);
  std::sort(pts.begin(), pts.end());  // by first objective, then second
  // Sweep by the first objective: each non-dominated point adds the slab between its second objective and the
  // best second objective seen so far, from its first objective to the reference.
  double area = 0;
  double best_second = reference[1];
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (pts[i][1] >= best_second) continue;  // dominated
    area += (reference[0] - pts[i][0]) * (best_second - pts[i][1]);
    best_second = pts[i][1];
  }
  return area;
}

double hypervolume_2d(const std::vector<FrontPoint>& front, const std::vector<model::Objective>& objectives,
                      std::array<double, 2> reference) {
  if (objectives.size() != 2) throw std::invalid_argument("hypervolume_2d needs exactly two objectives");
  auto orient = [&](std::size_t k, double v) { return objectives[k].direction == model::Direction::minimize ? v : -v; };
  std::vector<std::array<double, 2>> pts;
  pts.reserve(front.size());
  for (const FrontPoint& p : front) pts.push_back({orient(0, p.objectives[0]), orient(1, p.objectives[1])});
  return hypervolume_2d(pts, {orient(0, reference[0]), orient(1, reference[1])});
}

}  // namespace shardmeter::search
