#include "src/planning/metric_sense.hpp"

#include <array>

namespace shardmeter::cli {

namespace {

using search::Sense;
constexpr std::optional<Sense> kMin = Sense::minimize;
constexpr std::optional<Sense> kMax = Sense::maximize;
constexpr std::optional<Sense> kNone = std::nullopt;

// clang-format off
constexpr std::array kSenses = {
  MetricSense{"feasible", kNone},                     // always 1 on a front (memory fit is always required)
  MetricSense{"step_time_s", kMin},
  MetricSense{"tokens_per_s", kMax},
  MetricSense{"effective_tokens_per_s", kMax},
  MetricSense{"tokens_per_s_per_gpu", kMax},
  MetricSense{"tflops_per_gpu", kMax},
  MetricSense{"mfu", kMax},
  MetricSense{"hfu", kMax},
  MetricSense{"compute_utilization", kMax},
  MetricSense{"exposed_comm_fraction", kMin},
  MetricSense{"memory_per_gpu_gb", kMin},
  MetricSense{"memory_capacity_gb", kNone},           // a property of the GPU type, not of the plan's quality
  MetricSense{"memory_headroom_gb", kMax},
  MetricSense{"gpus", kMin},
  MetricSense{"cost_usd_per_hour", kMin},
  MetricSense{"cost_usd_per_million_tokens", kMin},
  MetricSense{"total_cost_usd", kMin},
  MetricSense{"gpu_usd_total", kMin},
  MetricSense{"egress_usd_total", kMin},
  MetricSense{"wall_clock_days", kMin},
  MetricSense{"wan_gb_per_step", kMin},
  MetricSense{"goodput", kMax},
  MetricSense{"model_flops_per_step", kNone},         // set by the batch, not a measure of the plan's quality
};
// clang-format on

}  // namespace

std::span<const MetricSense> metric_senses() noexcept { return kSenses; }

std::optional<search::Sense> natural_sense(std::string_view metric) noexcept {
  for (const MetricSense& m : kSenses)
    if (m.metric == metric) return m.sense;
  return std::nullopt;
}

}  // namespace shardmeter::cli
