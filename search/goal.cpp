#include "search/goal.hpp"

#include "model/units.hpp"

namespace shardmeter::search {

double total_cost_usd(const model::Estimate& e) noexcept { return e.total_cost_usd; }
double tokens_per_s(const model::Estimate& e) noexcept { return e.tokens_per_s; }
double wall_clock_days(const model::Estimate& e) noexcept { return e.wall_clock_s / model::kSecondsPerDay; }

std::vector<Objective> default_objectives() {
  return {Objective{"total_cost_usd", &total_cost_usd, Sense::minimize},
          Objective{"tokens_per_s", &tokens_per_s, Sense::maximize}};
}

MetricConstraint max_total_cost_usd(double usd) {
  return MetricConstraint{"max_total_cost_usd", &total_cost_usd, Limit::at_most, usd};
}
MetricConstraint max_wall_clock_days(double days) {
  return MetricConstraint{"max_wall_clock_days", &wall_clock_days, Limit::at_most, days};
}
MetricConstraint min_tokens_per_s(double tokens_per_second) {
  return MetricConstraint{"min_tokens_per_s", &tokens_per_s, Limit::at_least, tokens_per_second};
}

}  // namespace shardmeter::search
