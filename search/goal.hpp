#pragma once
// What the search optimises and what it must respect: objectives and constraints are metrics of the table in
// model/spec/metrics.hpp, read through its getters; GPU quotas count GPUs per GPU type.
#include <cstdint>
#include <string>
#include <vector>

#include "model/spec/metrics.hpp"
#include "model/spec/objective.hpp"

namespace shardmeter::search {

enum class Limit : std::uint8_t { at_most, at_least };

// A bound on one metric, e.g. {"max_total_cost_usd", total_cost_usd, at_most, 5e6}.
struct MetricConstraint {
  std::string name;                          // "max_<metric>" / "min_<metric>": reported as the rejection reason
  const model::Metric* metric = nullptr;     // an entry of model::kMetrics
  Limit limit = Limit::at_most;
  double value = 0;                          // in the metric's unit
};

// The constraint "metric <= value" (named max_<metric>) or "metric >= value" (min_<metric>).
MetricConstraint limit_metric(const model::Metric& metric, Limit limit, double value);

// At most `max_gpus` GPUs of one type (IslandSpec::gpu.name) over all islands (IslandSpec::total_gpus()).
struct GpuQuota {
  std::string gpu;
  std::int64_t max_gpus = 0;
};

inline constexpr int kMaxObjectives = 4;

struct Goal {
  std::vector<model::Objective> objectives;   // 1..kMaxObjectives; empty = default_objectives()
  std::vector<MetricConstraint> constraints;  // memory fit (Estimate::feasible) is always required
  std::vector<GpuQuota> quotas;
};

// Minimise total_cost_usd, maximise tokens_per_s.
std::vector<model::Objective> default_objectives();

}  // namespace shardmeter::search
