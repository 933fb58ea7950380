#pragma once
// Hypervolume of a two-objective front: the area it dominates up to a reference point (Zitzler & Thiele 1998).
// The usual yardstick for comparing fronts from different searches (e.g. annealing vs exhaustive).
#include <array>
#include <span>
#include <vector>

#include "search/goal.hpp"
#include "search/result.hpp"

namespace shardmeter::search {

// Points and reference in minimisation form; points not strictly better than the reference in both
// objectives contribute nothing. Order of points does not matter; dominated points are ignored.
double hypervolume_2d(std::span<const std::array<double, 2>> minimised, std::array<double, 2> reference);

// The front of a two-objective search, with the reference point given in the objectives' own units and
// directions (e.g. {max cost, min throughput}).
double hypervolume_2d(const std::vector<FrontPoint>& front, const std::vector<model::Objective>& objectives,
                      std::array<double, 2> reference);

}  // namespace shardmeter::search
