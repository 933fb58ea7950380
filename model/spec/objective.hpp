#pragma once
// An objective: a metric of the table (model/spec/metrics.hpp) and the direction that is better. The search optimises
// objectives through the metric's getter; result files store the metric's name and "min" / "max"
// (results/front/objective.hpp) and read it back into this same type.
#include <string_view>

#include "model/spec/metrics.hpp"

namespace shardmeter::model {

struct Objective {
  const Metric* metric = nullptr;            // an entry of kMetrics
  Direction direction = Direction::minimize;

  std::string_view name() const noexcept { return metric->name; }
  double value(const Estimate& e) const noexcept { return metric->get(e); }
  friend bool operator==(const Objective&, const Objective&) = default;
};

}  // namespace shardmeter::model
