#pragma once
// The metrics of an estimate, declared once: name, unit, the direction a search optimises it in when the scenario
// names no `sense`, and how to read it from a model::Estimate. Every consumer reads this table: result files write
// one column per entry (results/README.md), the search reads objectives and constraints through the getters
// (search/goal.hpp), and the `search:` section maps metric names onto entries (src/planning/search_section.cpp).
// A constexpr table of string_views and function pointers: nothing allocates, nothing runs at start-up.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "model/spec/estimate.hpp"
#include "model/spec/units.hpp"

namespace shardmeter::model {

// Which way a metric is better.
enum class Direction : std::uint8_t { minimize, maximize };

using MetricGetter = double (*)(const Estimate&) noexcept;

struct Metric {
  std::string_view name;                     // e.g. "tokens_per_s": the column name in every result file
  std::string_view unit;                     // e.g. "tokens/s", "USD", "fraction" for ratios, "true/false"
  std::optional<Direction> natural;          // as a search objective; nullopt: none (the scenario gives `sense:`)
  MetricGetter get;
};

namespace metric_table {
inline constexpr std::optional<Direction> kMin = Direction::minimize;
inline constexpr std::optional<Direction> kMax = Direction::maximize;
inline constexpr std::optional<Direction> kNone = std::nullopt;
// Units that are not physical: result files store a kBoolean metric as a boolean column.
inline constexpr std::string_view kBoolean = "true/false";
inline constexpr std::string_view kFraction = "fraction";   // a ratio from 0 to 1
}  // namespace metric_table

// clang-format off
inline constexpr std::array kMetrics = {
  // always 1 on a front (memory fit is always required), so no direction
  Metric{"feasible", metric_table::kBoolean, metric_table::kNone, [](const Estimate& e) noexcept { return e.feasible ? 1.0 : 0.0; }},
  Metric{"step_time_s", "s", metric_table::kMin, [](const Estimate& e) noexcept { return e.step_time_s; }},
  Metric{"tokens_per_s", "tokens/s", metric_table::kMax, [](const Estimate& e) noexcept { return e.tokens_per_s; }},
  Metric{"effective_tokens_per_s", "tokens/s", metric_table::kMax, [](const Estimate& e) noexcept { return e.effective_tokens_per_s; }},
  Metric{"tokens_per_s_per_gpu", "tokens/s", metric_table::kMax, [](const Estimate& e) noexcept { return e.tokens_per_s_per_gpu; }},
  Metric{"tflops_per_gpu", "TFLOP/s", metric_table::kMax, [](const Estimate& e) noexcept { return e.tflops_per_gpu; }},
  Metric{"mfu", metric_table::kFraction, metric_table::kMax, [](const Estimate& e) noexcept { return e.mfu; }},
  Metric{"hfu", metric_table::kFraction, metric_table::kMax, [](const Estimate& e) noexcept { return e.hfu; }},
  Metric{"compute_utilization", metric_table::kFraction, metric_table::kMax, [](const Estimate& e) noexcept { return e.compute_utilization; }},
  Metric{"exposed_comm_fraction", metric_table::kFraction, metric_table::kMin, [](const Estimate& e) noexcept { return e.exposed_comm_fraction; }},
  Metric{"memory_per_gpu_gb", "GB", metric_table::kMin, [](const Estimate& e) noexcept { return e.memory_per_gpu_bytes / kGB; }},
  // a property of the GPU type, not of the plan's quality
  Metric{"memory_capacity_gb", "GB", metric_table::kNone, [](const Estimate& e) noexcept { return e.memory_capacity_bytes / kGB; }},
  Metric{"memory_headroom_gb", "GB", metric_table::kMax, [](const Estimate& e) noexcept { return (e.memory_capacity_bytes - e.memory_per_gpu_bytes) / kGB; }},
  Metric{"gpus", "GPUs", metric_table::kMin, [](const Estimate& e) noexcept { return static_cast<double>(e.gpus); }},
  Metric{"cost_usd_per_hour", "USD per hour", metric_table::kMin, [](const Estimate& e) noexcept { return e.cost_usd_per_hour; }},
  Metric{"cost_usd_per_million_tokens", "USD per million tokens", metric_table::kMin, [](const Estimate& e) noexcept { return e.cost_usd_per_million_tokens; }},
  Metric{"cost_usd_per_effective_million_tokens", "USD per million tokens", metric_table::kMin, [](const Estimate& e) noexcept { return e.cost_usd_per_effective_million_tokens; }},
  // loss-equivalent tokens per trained token: the batch term times the DiLoCo term (docs/model.md §9.8)
  Metric{"token_efficiency", "ratio", metric_table::kMax, [](const Estimate& e) noexcept { return e.token_efficiency; }},
  // its batch term alone (docs/model.md §9.7): below 1 when the batch one optimizer sees exceeds the optimal batch
  Metric{"batch_efficiency", "ratio", metric_table::kMax, [](const Estimate& e) noexcept { return e.batch_efficiency; }},
  Metric{"total_cost_usd", "USD", metric_table::kMin, [](const Estimate& e) noexcept { return e.total_cost_usd; }},
  Metric{"gpu_usd_total", "USD", metric_table::kMin, [](const Estimate& e) noexcept { return e.gpu_usd_total; }},
  Metric{"egress_usd_total", "USD", metric_table::kMin, [](const Estimate& e) noexcept { return e.egress_usd_total; }},
  Metric{"wall_clock_days", "days", metric_table::kMin, [](const Estimate& e) noexcept { return e.wall_clock_s / kSecondsPerDay; }},
  Metric{"wan_gb_per_step", "GB", metric_table::kMin, [](const Estimate& e) noexcept { return e.wan_bytes_per_step / kGB; }},
  Metric{"wan_peak_gbps", "Gbit/s", metric_table::kMin, [](const Estimate& e) noexcept { return bytes_per_s_to_gbit_per_s(e.wan_peak_bytes_per_s); }},
  Metric{"goodput", metric_table::kFraction, metric_table::kMax, [](const Estimate& e) noexcept { return e.goodput; }},
  // set by the batch, not a measure of the plan's quality
  Metric{"model_flops_per_step", "FLOP", metric_table::kNone, [](const Estimate& e) noexcept { return e.model_flops_per_step; }},
  // properties of the model (MoE: active = per token; dense: equal), not of the plan
  Metric{"parameters_total", "parameters", metric_table::kNone, [](const Estimate& e) noexcept { return e.parameters_total; }},
  Metric{"parameters_active", "parameters", metric_table::kNone, [](const Estimate& e) noexcept { return e.parameters_active; }},
  // the estimate's Warning bits (model/spec/estimate_warnings.hpp), so that files, reports and constraints see them
  // (the constraint `max_warning_bits: 0` keeps only plans without a warning); not a measure of the plan
  Metric{"warning_bits", "bits", metric_table::kNone, [](const Estimate& e) noexcept { return static_cast<double>(e.warnings); }},
};
// clang-format on

constexpr std::span<const Metric> metrics() noexcept { return kMetrics; }

// The entry named `name`, or nullptr.
constexpr const Metric* find_metric(std::string_view name) noexcept {
  for (const Metric& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

// The entry named `name`, looked up while compiling: a name that is not in the table does not compile.
consteval const Metric& metric(std::string_view name) {
  const Metric* m = find_metric(name);
  if (m == nullptr) throw "model::metric: no such metric";  // not a constant expression: a compile error
  return *m;
}

}  // namespace shardmeter::model
