#pragma once
// Optimistic bounds on an estimate's metrics that hold for every plan of a given cluster, model and token budget
// (docs/model.md §16): whatever the parallel layout, batch, recompute, precision or overlap flags, model::evaluate
// gives a value inside [lower, upper]. The search uses them to skip blocks of candidates that share these inputs
// and cannot meet a constraint or are dominated (search/README.md, "Pruning by bounds").
#include <limits>

#include "model/spec/field_id.hpp"
#include "model/spec/metrics.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

struct MetricBound {
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
};

// The bytes of a Scenario the bounds read: the whole model, the whole cluster, training.tokens and
// training.precision. Two scenarios equal on these bytes get the same bounds.
ByteRanges metric_bound_bytes() noexcept;

// The peak token rate no plan of this scenario's cluster, model and precision exceeds (tokens/s of the whole job,
// every GPU at the highest rate its kernels reach; §16.1), or +infinity where the bound is not proven (MoE models, hardware constants
// outside their physical ranges).
double max_tokens_per_s(const Scenario& scenario) noexcept;

// Bounds of `metric` (an entry of model::metrics()) for every scenario equal to `scenario` on metric_bound_bytes().
// Metrics without a proven bound get (-inf, +inf).
MetricBound metric_bound(const Metric& metric, const Scenario& scenario) noexcept;

}  // namespace shardmeter::model
