#include "search/goal.hpp"

namespace shardmeter::search {

MetricConstraint limit_metric(const model::Metric& metric, Limit limit, double value) {
  const std::string prefix = limit == Limit::at_most ? "max_" : "min_";
  return MetricConstraint{prefix + std::string(metric.name), &metric, limit, value};
}

std::vector<model::Objective> default_objectives() {
  return {model::Objective{&model::metric("total_cost_usd"), model::Direction::minimize},
          model::Objective{&model::metric("tokens_per_s"), model::Direction::maximize}};
}

}  // namespace shardmeter::search
