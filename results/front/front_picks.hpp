#pragma once
// The plans a report annotates and `export --pick` selects: the cheapest, the fastest and the knee of a
// cost-vs-throughput front.
//
// Knee (definition): take the rows on the cost/throughput Pareto front (min total_cost_usd, max throughput: the
// loss-equivalent effective_tokens_per_s when the rows have it, which equals tokens_per_s for synchronous plans).
// Map each to normalised log space,
//     u = (log t - log t_min) / (log t_max - log t_min)      t = tokens_per_s
//     v = (log c - log c_min) / (log c_max - log c_min)      c = total_cost_usd
// so the cheapest plan sits at (0, 0) and the fastest at (1, 1). The knee is the plan farthest from the line
// between them on the favourable side: the one maximising u - v (proportional to its distance from the line
// u = v), i.e. the plan that buys the most throughput per unit of extra cost in relative (log) terms. Log space
// makes the choice independent of units and of the front's absolute scale. Ties go to the cheaper plan. When no
// plan lies strictly on the favourable side (fronts of one or two plans, or a front bowed the other way) the knee
// is the cheapest plan. A range of zero width (all costs or all throughputs equal) maps to 0.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "results/front/row.hpp"

namespace shardmeter::results {

struct FrontPicks {
  std::size_t cheapest = 0;   // lowest total_cost_usd (ties: higher throughput, then earlier row)
  std::size_t fastest = 0;    // highest tokens_per_s (ties: lower cost, then earlier row)
  std::size_t knee = 0;       // see above
};

// Row indices into `rows`; nullopt for no rows. Rows with a non-finite cost or throughput are ignored (nullopt
// when none is left). Throws ResultsError when a row lacks total_cost_usd or tokens_per_s.
std::optional<FrontPicks> pick_front(std::span<const Row> rows);

// The knee of plain (cost, throughput) pairs, by the definition above; index into `points`. Requires a
// non-empty input of positive, finite values.
std::size_t knee_of(std::span<const std::pair<double, double>> cost_throughput);

// "cheapest", "fastest", "knee" -> the pick; nullopt for any other word.
std::optional<std::size_t> pick_by_name(const FrontPicks& picks, std::string_view name);

}  // namespace shardmeter::results
