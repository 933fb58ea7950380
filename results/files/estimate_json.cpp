#include "results/files/estimate_json.hpp"

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/spec/enum_names.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/spec/metrics.hpp"
#include "model/spec/units.hpp"
#include "results/columns.hpp"
#include "results/markup.hpp"

namespace shardmeter::results {

namespace m = shardmeter::model;

namespace {

// JSON has no NaN or infinity: such values (e.g. a rate over a zero token budget) are written as null.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json cell_json(const CellValue& cell) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, cell);
}

nlohmann::json time_json(const m::TimeBreakdown& t) {
  nlohmann::json j;
  j["compute_s"] = number(t.compute_s);
  j["recompute_s"] = number(t.recompute_s);
  j["memory_bound_s"] = number(t.memory_bound_s);
  j["tp_comm_s"] = number(t.tp_comm_s);
  j["pp_comm_s"] = number(t.pp_comm_s);
  j["bubble_s"] = number(t.bubble_s);
  j["dp_comm_s"] = number(t.dp_comm_s);
  j["optimizer_s"] = number(t.optimizer_s);
  j["wan_s"] = number(t.wan_s);
  j["straggler_s"] = number(t.straggler_s);
  j["ep_comm_s"] = number(t.ep_comm_s);
  // Written only with host-memory offload (docs/model.md §7.15, §7.16), so estimates without it keep their JSON.
  if (t.host_offload_s != 0) j["host_offload_s"] = number(t.host_offload_s);
  j["total_s"] = number(t.total());
  return j;
}

nlohmann::json memory_json(const m::MemoryBreakdown& mem) {
  nlohmann::json j;
  j["weights_gb"] = number(mem.weights_bytes / m::kGB);
  j["gradients_gb"] = number(mem.gradients_bytes / m::kGB);
  j["optimizer_gb"] = number(mem.optimizer_bytes / m::kGB);
  j["activations_gb"] = number(mem.activations_bytes / m::kGB);
  j["fsdp_buffers_gb"] = number(mem.fsdp_buffers_bytes / m::kGB);
  j["logits_gb"] = number(mem.logits_bytes / m::kGB);
  j["outer_state_gb"] = number(mem.outer_state_bytes / m::kGB);
  j["runtime_overhead_gb"] = number(mem.runtime_overhead_bytes / m::kGB);
  j["expert_states_gb"] = number(mem.expert_states_bytes / m::kGB);
  j["total_gb"] = number(mem.total() / m::kGB);
  return j;
}

nlohmann::json island_json(const m::Scenario& s, const m::Estimate& e, int i) {
  const m::IslandSpec& spec = s.cluster.islands[static_cast<std::size_t>(i)];
  const m::IslandEstimate& ie = e.islands[static_cast<std::size_t>(i)];
  nlohmann::json j;
  j["name"] = std::string(spec.name.view());
  j["gpu"] = std::string(spec.gpu.name.view());
  j["gpus"] = spec.gpus;
  j["count"] = spec.count;
  j["gpus_per_node"] = spec.gpus_per_node;
  j["price_usd_per_gpu_hour"] = number(spec.price_usd_per_gpu_hour);
  j["feasible"] = ie.feasible;
  j["tokens_per_s"] = number(ie.tokens_per_s);
  j["tokens_per_s_per_gpu"] = number(ie.tokens_per_s_per_gpu);
  j["utilization"] = number(ie.utilization);
  j["bottleneck"] = std::string(model::enum_name(ie.bottleneck));
  j["batch_share"] = number(ie.batch_share);
  j["step_time_s"] = number(ie.step_time_s);
  j["memory_per_gpu_gb"] = number(ie.memory_per_gpu_bytes / m::kGB);
  j["memory_capacity_gb"] = number(ie.memory_capacity_bytes / m::kGB);
  j["time"] = time_json(ie.time);
  j["memory"] = memory_json(ie.memory);
  // NCCL's algorithm (or the measured profile) each kind of collective was charged with (docs/model.md §3.5).
  j["collectives"] = {{"tp", std::string(model::enum_name(ie.collectives.tp))},
                      {"cp", std::string(model::enum_name(ie.collectives.cp))},
                      {"dp", std::string(model::enum_name(ie.collectives.dp))}};
  return j;
}

}  // namespace

std::string estimate_json(const m::Scenario& s, const m::Estimate& e, std::string_view name,
                          std::span<const std::string> uncalibrated_gpus, JsonLayout layout,
                          std::string_view stack_source) {
  nlohmann::json j;
  j["name"] = std::string(name);
  for (const m::Metric& metric : m::metrics()) j[std::string(metric.name)] = number(metric.get(e));
  j["feasible"] = e.feasible;
  j["gpus"] = e.gpus;
  j["reject_reason"] = std::string(model::enum_name(e.reject_reason));
  j["bottleneck"] = std::string(model::enum_name(e.bottleneck));
  // Per-step figures beyond the metrics.
  j["tokens_per_step"] = number(e.tokens_per_step);
  j["hardware_flops_per_step"] = number(e.hardware_flops_per_step);
  // The dense peak mfu and hfu are measured against (docs/model.md §1.4): "fp8" for fp8 runs, "bf16"/"fp16" (one
  // 16-bit peak) otherwise.
  j["mfu_peak_precision"] = std::string(model::enum_name(e.mfu_peak_precision));
  j["wall_clock_s"] = number(e.wall_clock_s);
  j["trained_tokens"] = number(e.trained_tokens);
  // The two terms of token_efficiency and the batches of the batch term (docs/model.md §9.7, §9.8).
  j["token_efficiency_parts"] = {{"batch", number(e.batch_efficiency)},
                                 {"diloco", number(e.diloco_efficiency)},
                                 {"optimizer_batch_tokens", number(e.optimizer_batch_tokens)},
                                 {"optimal_batch_tokens", number(e.optimal_batch_tokens)},
                                 {"noise_batch_tokens", number(e.noise_batch_tokens)}};
  j["wan_gb_per_outer_step"] = number(e.wan_bytes_per_outer_step / m::kGB);
  j["wan_reduction_vs_sync"] = number(e.wan_reduction_vs_sync);
  j["checkpoint_interval_s"] = number(e.checkpoint_interval_s);
  const m::GoodputParts& g = e.goodput_parts;
  j["goodput_parts"] = {{"per_island", g.per_island},
                        {"failures_per_hour", number(g.failures_per_hour)},
                        {"mtbf_s", number(g.mtbf_s)},
                        {"checkpoint_write_s", number(g.checkpoint_write_s)},
                        {"checkpoint_loss", number(g.checkpoint_loss)},
                        {"rework_loss", number(g.rework_loss)},
                        {"restart_loss", number(g.restart_loss)},
                        {"island_out_loss", number(g.island_out_loss)}};
  j["warnings"] = nlohmann::json::array();
  for (const m::WarningText& w : m::kWarningTexts)
    if ((e.warnings & m::bit(w.warning)) != 0)
      j["warnings"].push_back({{"name", std::string(w.name)}, {"text", std::string(w.text)}});
  j["time"] = time_json(e.time);
  j["memory"] = memory_json(e.memory);
  j["islands"] = nlohmann::json::array();
  for (int i = 0; i < s.cluster.island_entries; ++i) j["islands"].push_back(island_json(s, e, i));
  nlohmann::json plan = nlohmann::json::object();
  for (const ScenarioColumn& column : job_scenario_columns()) plan[column.name] = cell_json(column.get(s, -1));
  if (!stack_source.empty()) plan["stack_source"] = std::string(stack_source);
  j["plan"] = plan;
  j["uncalibrated_gpus"] = std::vector<std::string>(uncalibrated_gpus.begin(), uncalibrated_gpus.end());
  // Invalid UTF-8 in a name is replaced, never thrown (results/markup.hpp: json_text).
  if (layout == JsonLayout::indented) return json_text(j);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace shardmeter::results
