#pragma once
// What changed between a front and a baseline front (an earlier run of the same scenario): plans that joined or
// left the front, and the cost change at matched speed.
//
// Plans are matched by their plan key: the plan, training and cluster-shape columns (plan_key_columns()) both files
// have, plus every `axis:` column both files have. Prices and metrics are not in the key, so a re-priced plan is the
// same plan; booleans compare as 0 / 1, so a file written before schema_version 3 matches a newer one.
//
// Cost at matched speed: cost and speed are the picks' axes (front_picks.hpp: total cost and throughput unless the
// search optimised others). For each point of the new front (speed t as "more is better", cost c) the baseline's
// cost is read on the baseline front's step function, cost_b(t) = min { cost_j : speed_j >= t } -- the cheapest
// baseline plan that is at least as fast. When no baseline plan is that fast, the point has no baseline cost.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "results/front/front_picks.hpp"
#include "results/front/row.hpp"

namespace shardmeter::results {

struct MatchedCost {
  std::size_t row = 0;                    // row index of the new front
  double speed = 0;                       // the speed axis' value (tokens/s, days, ...)
  double cost_usd = 0;                    // the cost axis' value
  std::optional<double> baseline_cost_usd;   // nullopt: no baseline plan is this fast
  // (cost - baseline) / baseline; nullopt without a baseline cost.
  std::optional<double> relative_change() const;
};

struct FrontDiff {
  std::vector<std::size_t> joined;        // rows of the new front whose plan is not on the baseline front
  std::vector<std::size_t> left;          // rows of the baseline front whose plan is not on the new front
  std::vector<std::pair<std::size_t, std::size_t>> kept;   // (new row, baseline row) of plans on both fronts
  std::vector<MatchedCost> matched;       // one per pickable row of the new front, in row order
  std::optional<double> cheapest_cost_change;       // relative change of the lowest cost
  std::optional<double> fastest_speed_change;       // relative change of the best speed (as its value: days fall)
};

// The fixed part of the plan key.
std::span<const std::string> plan_key_columns();
// The key of one row: the values of `columns` (missing ones skipped), joined with an unambiguous separator.
std::string plan_key(const Row& row, std::span<const std::string> columns);

// cost_b(t) on the step function of (cost, goodness) points, as defined above. A relative tolerance of 1e-9 on
// the goodness lets a plan match itself exactly.
std::optional<double> step_cost_at(std::span<const std::pair<double, double>> cost_goodness, double goodness);

// Throws ResultsError when a row lacks the axes' columns. Rows that cannot be picked (front_picks.hpp) are skipped
// in the cost comparison.
FrontDiff diff_fronts(const Table& now, const Table& baseline, const PickAxes& axes);

}  // namespace shardmeter::results
