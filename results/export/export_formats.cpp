#include "results/export/export_formats.hpp"

#include <array>

#include <fmt/format.h>

#include "results/markup.hpp"
#include "results/front/plan_labels.hpp"

namespace shardmeter::results {

namespace {
constexpr std::array<std::string_view, 5> kNames = {"plan-json", "torchtitan", "megatron", "deepspeed", "torchrun"};
}

std::span<const std::string_view> export_format_names() { return kNames; }

std::optional<ExportFormat> parse_export_format(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<ExportFormat>(i);
  return std::nullopt;
}

std::string_view to_string(ExportFormat format) noexcept { return kNames[static_cast<std::size_t>(format)]; }

Exported export_plan(ExportFormat format, const DeployPlan& plan, const ExportSource& source) {
  switch (format) {
    case ExportFormat::plan_json: return export_plan_json(plan, source);
    case ExportFormat::torchtitan: return export_torchtitan(plan, source);
    case ExportFormat::megatron: return export_megatron(plan, source);
    case ExportFormat::deepspeed: return export_deepspeed(plan, source);
    case ExportFormat::torchrun: return export_torchrun(plan, source);
  }
  return {};
}

std::string export_header_comment(const DeployPlan& plan, const ExportSource& source) {
  const Row& r = *source.row;
  // Comment lines must stay single lines: names come from files and may hold anything.
  const auto line = [](std::string s) {
    for (char& c : s)
      if (c == '\n' || c == '\r') c = ' ';
    return "# " + s + "\n";
  };
  std::string out = line(fmt::format("ShardMeter {} plan export: scenario {}, front row {} (pick {}) of {}",
                                     source.info->version, source.info->scenario_name, plan.row, source.pick,
                                     source.front_path));
  out += line("plan: " + plan_summary(r));
  out += line(fmt::format("predicted: {} for {} tokens, {} tokens/s, {} days, MFU {}, bottleneck {}",
                          format_usd(number(r, "total_cost_usd")), format_si(plan.training_tokens),
                          format_si(number(r, "tokens_per_s")), format_fixed(number(r, "wall_clock_days"), 1),
                          format_percent(number(r, "mfu")), text(r, "bottleneck")));
  return out;
}

void require_single_uniform_job(std::string_view format, const DeployPlan& plan) {
  const std::string f(format);
  if (plan.diloco())
    throw ExportError(f, fmt::format("DiLoCo across {} islands (plan.sync = diloco) needs one job per island and "
                                     "an outer optimizer; a single {} job has neither (use plan-json or torchtitan)",
                                     plan.islands.size(), f));
  if (!plan.identical_islands)
    throw ExportError(f, "synchronous islands that differ in GPU type, GPUs or GPUs per node: one job splits the "
                         "batch evenly over its ranks, the plan does not (use plan-json)");
}

}  // namespace shardmeter::results
