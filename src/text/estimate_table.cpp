#include "src/text/estimate_table.hpp"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "model/consistency.hpp"
#include "model/estimate_warnings.hpp"
#include "model/parameters.hpp"
#include "model/units.hpp"
#include "results/columns.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/enum_names.hpp"
#include "src/text/text_format.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

std::string gb(double bytes) { return std::isfinite(bytes) ? fmt::format("{:.1f} GB", bytes / m::kGB) : "n/a"; }

std::string tokens(double n) {
  if (n >= 1e12) return fmt::format("{:.4g} T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.4g} B", n / 1e9);
  return grouped(n);
}

void row(std::string& out, std::string_view label, const std::string& value) {
  out += fmt::format("{:<22}{}\n", label, value);
}

void describe_scenario(std::string& out, const LoadedScenario& loaded, const Catalog& catalog) {
  const m::Scenario& s = loaded.scenario;
  const m::ModelSpec& md = s.model;
  const std::optional<std::string> preset = scalar_at(loaded.doc, "model.preset");
  const std::optional<std::string> description = scalar_at(loaded.doc, "description");
  out += fmt::format("shardmeter estimate: {}\n", loaded.name);
  // The header says what was evaluated; the file's description may no longer hold after --set.
  std::string gpus;
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const m::IslandSpec& isl = s.cluster.islands[static_cast<std::size_t>(i)];
    gpus += fmt::format("{}{} x {}", i > 0 ? " + " : "", grouped(static_cast<double>(isl.gpus) * isl.count),
                        isl.gpu.name.view());
  }
  out += fmt::format("  {:.1f} B-parameter {}model on {} GPUs ({})\n", m::count_parameters(md).total / 1e9,
                     preset ? *preset + " " : "", gpus,
                     s.plan.sync == m::SyncMode::diloco ? "DiLoCo" : "synchronous training");
  if (description)
    out += loaded.doc.applied.empty()
               ? "  " + *description + "\n"
               : "  (the file's description, before --set: " + *description + ")\n";
  out += "\n";

  row(out, "Model",
      fmt::format("{}{} layers, hidden {}, {} heads{}, FFN {} ({}), vocab {}, seq {}",
                  preset ? *preset + ": " : "", md.layers, md.hidden,
                  md.heads, md.kv_heads != md.heads ? fmt::format(" ({} KV)", md.kv_heads) : "", md.ffn_hidden,
                  enum_name(md.ffn_type), md.vocab, md.seq_len));
  const m::ParameterCounts params = m::count_parameters(md);
  if (md.moe.experts == 0) {
    row(out, "", fmt::format("{:.2f} B parameters", params.total / 1e9));
  } else {
    row(out, "", fmt::format("{:.2f} B parameters, {:.2f} B active per token: {} routed experts (top-{}) of width {}"
                             "{}", params.total / 1e9, params.active / 1e9, md.moe.experts, md.moe.top_k,
                             md.moe.expert_ffn_hidden,
                             md.moe.shared_experts > 0 ? fmt::format(", {} shared", md.moe.shared_experts) : ""));
  }

  std::string cluster;
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const m::IslandSpec& isl = s.cluster.islands[static_cast<std::size_t>(i)];
    cluster += fmt::format("{}{}{} x {} ({} node{} of {}) at ${:.2f}/GPU-hour{}", i > 0 ? "; " : "",
                           isl.count > 1 ? fmt::format("{} islands of ", isl.count) : "", isl.gpus, isl.gpu.name.view(),
                           isl.nodes(), isl.nodes() == 1 ? "" : "s", isl.gpus_per_node, isl.price_usd_per_gpu_hour,
                           isl.spot ? " (spot)" : "");
  }
  row(out, "Cluster", fmt::format("{} GPUs: {}", s.cluster.total_gpus(), cluster));
  bool first = true;
  for (const std::string& name : gpu_types_of(s)) {
    row(out, first ? "Calibration" : "", name + ": " + describe_calibration(catalog, name, s.plan.stack));
    first = false;
  }

  const m::PlanSpec& p = s.plan;
  const int dp = m::total_data_parallel(s);
  std::string plan = fmt::format("TP {} x PP {} x CP {} x DP {}", p.tp, p.pp, p.cp, dp);
  if (p.interleave > 1) plan += fmt::format(", interleave {}", p.interleave);
  if (p.sequence_parallel) plan += ", sequence parallel";
  plan += fmt::format(", sharding {}, {} recompute, {} attention", model::enum_name(p.sharding),
                      model::enum_name(p.recompute), model::enum_name(p.attention));
  if (p.sync == m::SyncMode::diloco) plan += fmt::format(", DiLoCo H = {}", p.diloco.inner_steps);
  if (md.moe.experts > 0)
    plan += fmt::format("; experts ETP {} x EP {} ({} dispatch{})", p.etp, p.ep, model::enum_name(p.ep_dispatcher),
                        p.ep_overlap ? ", overlapped" : "");
  row(out, "Plan", plan);

  const m::TrainingSpec& t = s.training;
  const double per_replica = dp > 0 ? static_cast<double>(t.global_batch) / (static_cast<double>(t.micro_batch) * dp) : 0;
  row(out, "Batch", fmt::format("{} sequences x {} tokens = {} tokens per step; micro-batch {}, {:g} micro-batches "
                                "per replica; {}, {}", t.global_batch, md.seq_len,
                                grouped(static_cast<double>(t.global_batch) * md.seq_len), t.micro_batch, per_replica,
                                model::enum_name(t.precision), enum_name(t.optimizer)));
}

void describe_time(std::string& out, const m::Estimate& e) {
  const m::TimeBreakdown& t = e.time;
  row(out, "Step time", seconds(e.step_time_s));
  const std::pair<std::string_view, double> parts[] = {
      {"compute", t.compute_s},         {"recompute", t.recompute_s}, {"memory-bound", t.memory_bound_s},
      {"TP communication", t.tp_comm_s}, {"PP communication", t.pp_comm_s}, {"pipeline bubble", t.bubble_s},
      {"DP communication", t.dp_comm_s}, {"optimizer", t.optimizer_s}, {"WAN", t.wan_s},
      {"straggler wait", t.straggler_s}, {"EP all-to-all", t.ep_comm_s}};
  for (const auto& [label, value] : parts)
    if (value != 0)
      out += fmt::format("  {:<20}{:>12}  {:>7}\n", label, seconds(value),
                         e.step_time_s > 0 ? percent(value / e.step_time_s) : "n/a");
}

void describe_memory(std::string& out, const m::Scenario& s, const m::Estimate& e) {
  row(out, "Memory per GPU", fmt::format("{} of {} usable (HBM less an allocator reserve of {} of the transient allocations)",
                                         gb(e.memory_per_gpu_bytes), gb(e.memory_capacity_bytes),
                                         percent(s.runtime.fragmentation_fraction)));
  const m::MemoryBreakdown& mem = e.memory;
  const std::pair<std::string_view, double> parts[] = {
      {"weights", mem.weights_bytes},       {"gradients", mem.gradients_bytes},
      {"optimizer states", mem.optimizer_bytes}, {"activations", mem.activations_bytes},
      {"FSDP buffers", mem.fsdp_buffers_bytes}, {"logits", mem.logits_bytes},
      {"DiLoCo outer state", mem.outer_state_bytes}, {"runtime overhead", mem.runtime_overhead_bytes},
      {"expert states", mem.expert_states_bytes}};
  for (const auto& [label, value] : parts)
    if (value != 0) out += fmt::format("  {:<20}{:>12}\n", label, gb(value));
}

void describe_islands(std::string& out, const m::Scenario& s, const m::Estimate& e) {
  out += fmt::format("\nIslands\n  {:<16}{:<15}{:>7}{:>6}{:>14}{:>14}{:>9}{:>12}  {}\n", "name", "GPU", "GPUs", "x",
                     "tokens/s", "tokens/s/GPU", "util", "memory/GPU", "bottleneck");
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const m::IslandSpec& isl = s.cluster.islands[static_cast<std::size_t>(i)];
    const m::IslandEstimate& ie = e.islands[static_cast<std::size_t>(i)];
    out += fmt::format("  {:<16}{:<15}{:>7}{:>6}{:>14}{:>14}{:>9}{:>12}  {}\n", isl.name.view(), isl.gpu.name.view(),
                       isl.gpus, isl.count, grouped(ie.tokens_per_s), grouped(ie.tokens_per_s_per_gpu),
                       percent(ie.utilization), gb(ie.memory_per_gpu_bytes), model::enum_name(ie.bottleneck));
  }
}

}  // namespace

std::string format_estimate_table(const LoadedScenario& loaded, const Catalog& catalog, const m::Estimate& e) {
  const m::Scenario& s = loaded.scenario;
  std::string out;
  describe_scenario(out, loaded, catalog);
  out += "\n";
  if (e.feasible) {
    row(out, "Result", "feasible");
  } else if (e.reject_reason == m::RejectReason::out_of_memory) {
    row(out, "Result", fmt::format("INFEASIBLE ({}): needs {} per GPU, only {} usable", model::enum_name(e.reject_reason),
                                   gb(e.memory_per_gpu_bytes), gb(e.memory_capacity_bytes)));
  } else {
    row(out, "Result", fmt::format("INFEASIBLE ({})", model::enum_name(e.reject_reason)));
  }
  row(out, "Bottleneck", std::string(model::enum_name(e.bottleneck)));
  out += "\n";
  describe_time(out, e);
  row(out, "Throughput", fmt::format("{} tokens/s ({} tokens/s per GPU)", grouped(e.tokens_per_s),
                                     grouped(e.tokens_per_s_per_gpu)));
  if (s.plan.sync == m::SyncMode::diloco && e.tokens_per_s > 0)
    row(out, "Effective throughput",
        fmt::format("{} loss-equivalent tokens/s (token efficiency {} of synchronous training)",
                    grouped(e.effective_tokens_per_s), percent(e.effective_tokens_per_s / e.tokens_per_s)));
  row(out, "TFLOP/s per GPU", fmt::format("{:.1f} (model FLOPs)", e.tflops_per_gpu));
  // The peak both are measured against is named (docs/model.md §1.4): the dense fp8 peak for fp8 runs.
  row(out, "MFU / HFU", percent(e.mfu) + " / " + percent(e.hfu) + " of the dense " +
                            std::string(m::enum_name(e.mfu_peak_precision)) + " peak");
  if (e.wan_bytes_per_step > 0)
    row(out, "WAN", fmt::format("{} per step across islands; peak need {:.3g} Gbit/s per island link",
                                gb(e.wan_bytes_per_step), m::bytes_per_s_to_gbit_per_s(e.wan_peak_bytes_per_s)));
  out += "\n";
  describe_memory(out, s, e);
  out += "\n";
  row(out, "Cost", fmt::format("{} per hour, {} per million tokens, {} per million effective tokens",
                               usd(e.cost_usd_per_hour), usd(e.cost_usd_per_million_tokens),
                               usd(e.cost_usd_per_effective_million_tokens)));
  if (s.training.tokens > 0 && e.token_efficiency != 1)
    row(out, "Token budget", fmt::format("{} loss-equivalent tokens = {} trained: {:.1f} days wall-clock, {} total",
                                         tokens(s.training.tokens), tokens(e.trained_tokens),
                                         e.wall_clock_s / m::kSecondsPerDay, usd(e.total_cost_usd)));
  else if (s.training.tokens > 0)
    row(out, "Token budget", fmt::format("{} tokens: {:.1f} days wall-clock, {} total", tokens(s.training.tokens),
                                         e.wall_clock_s / m::kSecondsPerDay, usd(e.total_cost_usd)));
  else
    row(out, "Token budget", "not given (training.tokens): no wall-clock or total cost");
  describe_islands(out, s, e);
  for (const m::WarningText& w : m::kWarningTexts)
    if ((e.warnings & m::bit(w.warning)) != 0) out += fmt::format("\nWarning: {}", w.text);
  if (e.warnings != 0) out += "\n";
  return out;
}

}  // namespace shardmeter::cli
