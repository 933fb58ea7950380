#pragma once
// What changed between a front and a baseline front (an earlier run of the same scenario): plans that joined or
// left the front, and the cost change at matched throughput.
//
// Plans are matched by their plan key: the plan, training and cluster-shape columns (plan_key_columns()) plus every
// `axis:` column both files have. Prices and metrics are not in the key, so a re-priced plan is the same plan.
//
// Cost at matched throughput: for each point of the new front (throughput t, cost c) the baseline's cost is read on
// the baseline front's step function, cost_b(t) = min { cost_j : throughput_j >= t } -- the cheapest baseline plan
// that reaches at least t. When no baseline plan is that fast, the point has no baseline cost (a new capability).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "results/front/row.hpp"

namespace shardmeter::results {

struct MatchedCost {
  std::size_t row = 0;                    // row of the new front
  double tokens_per_s = 0;
  double cost_usd = 0;
  std::optional<double> baseline_cost_usd;   // nullopt: no baseline plan reaches this throughput
  // (cost - baseline) / baseline; nullopt without a baseline cost.
  std::optional<double> relative_change() const;
};

struct FrontDiff {
  std::vector<std::size_t> joined;        // rows of the new front whose plan is not on the baseline front
  std::vector<std::size_t> left;          // rows of the baseline front whose plan is not on the new front
  std::vector<std::pair<std::size_t, std::size_t>> kept;   // (new row, baseline row) of plans on both fronts
  std::vector<MatchedCost> matched;       // one per usable row of the new front, in row order
  std::optional<double> cheapest_cost_change;       // relative change of the lowest cost
  std::optional<double> fastest_throughput_change;  // relative change of the highest throughput
};

// The fixed part of the plan key.
std::span<const std::string> plan_key_columns();
// The key of one row: the values of `columns` (missing ones skipped), joined with an unambiguous separator.
std::string plan_key(const Row& row, std::span<const std::string> columns);

// cost_b(t) on the step function of (cost, throughput) points, as defined above. A relative tolerance of 1e-9 on
// throughput lets a plan match itself exactly.
std::optional<double> step_cost_at(std::span<const std::pair<double, double>> cost_throughput, double tokens_per_s);

// Throws ResultsError when a row lacks total_cost_usd or tokens_per_s. Rows with non-finite values are skipped in
// the cost comparison.
FrontDiff diff_fronts(const Table& now, const Table& baseline);

}  // namespace shardmeter::results
