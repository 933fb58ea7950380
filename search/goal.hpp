#pragma once
// What the search optimises and what it must respect: objectives and constraints read metrics of an estimate
// through plain getter functions, so the search needs no table of metric names (the CLI maps names to
// getters with results/columns.hpp) and GPU quotas count GPUs per GPU type.
#include <cstdint>
#include <string>
#include <vector>

#include "model/estimate.hpp"

namespace shardmeter::search {

using MetricGetter = double (*)(const model::Estimate&);

enum class Sense : std::uint8_t { minimize, maximize };

struct Objective {
  std::string name;      // e.g. "total_cost_usd"
  MetricGetter get = nullptr;
  Sense sense = Sense::minimize;
};

enum class Limit : std::uint8_t { at_most, at_least };

// A bound on one metric, e.g. {"max_total_cost_usd", total_cost_usd, at_most, 5e6}.
struct MetricConstraint {
  std::string name;      // reported as the rejection reason
  MetricGetter get = nullptr;
  Limit limit = Limit::at_most;
  double value = 0;
};

// At most `max_gpus` GPUs of one type (IslandSpec::gpu.name) over all islands (IslandSpec::total_gpus()).
struct GpuQuota {
  std::string gpu;
  std::int64_t max_gpus = 0;
};

inline constexpr int kMaxObjectives = 4;

struct Goal {
  std::vector<Objective> objectives;          // 1..kMaxObjectives; empty = default_objectives()
  std::vector<MetricConstraint> constraints;  // memory fit (Estimate::feasible) is always required
  std::vector<GpuQuota> quotas;
};

// The metrics the defaults use.
double total_cost_usd(const model::Estimate& e) noexcept;
double tokens_per_s(const model::Estimate& e) noexcept;
double wall_clock_days(const model::Estimate& e) noexcept;

// Minimise total_cost_usd, maximise tokens_per_s.
std::vector<Objective> default_objectives();
MetricConstraint max_total_cost_usd(double usd);
MetricConstraint max_wall_clock_days(double days);
MetricConstraint min_tokens_per_s(double tokens_per_second);

}  // namespace shardmeter::search
