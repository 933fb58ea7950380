#include "src/text/estimate_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "model/parallel/consistency.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/job/evaluate.hpp"
#include "model/job/goodput.hpp"
#include "model/kernels/parameters.hpp"
#include "model/spec/units.hpp"
#include "results/columns.hpp"
#include "results/markup.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/enum_names.hpp"
#include "src/text/text_format.hpp"
#include "src/scenario/stack_source.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

std::string gb(double bytes) { return std::isfinite(bytes) ? fmt::format("{:.1f} GB", bytes / m::kGB) : "n/a"; }

std::string tokens(double n) {
  if (n >= 1e12) return fmt::format("{:.4g} T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.4g} B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.3g} M", n / 1e6);
  return grouped(n);
}

void row(std::string& out, std::string_view label, const std::string& value) {
  out += fmt::format("{:<22}{}\n", label, value);
}

void describe_scenario(std::string& out, const LoadedScenario& loaded, const Catalog& catalog) {
  const m::Scenario& s = loaded.scenario;
  const m::ModelSpec& md = s.model;
  const std::optional<std::string> preset = scalar_at(loaded.doc, "model.preset");
  // Terminal-safe: a YAML escape ("\e[2J", "\x9b") can put control characters into the parsed text (issue 33).
  std::optional<std::string> description = scalar_at(loaded.doc, "description");
  if (description) description = results::terminal_text(*description);
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
  if (p.pipeline_schedule == m::PipelineSchedule::dualpipe) plan += ", DualPipe";
  if (p.sequence_parallel) plan += ", sequence parallel";
  plan += fmt::format(", sharding {}, {} recompute, {} attention", model::enum_name(p.sharding),
                      model::enum_name(p.recompute), model::enum_name(p.attention));
  if (p.fp8_activation_cache) plan += ", fp8 activation cache";
  if (p.activation_offload_layers > 0) plan += fmt::format(", {} blocks' activations offloaded", p.activation_offload_layers);
  if (p.optimizer_offload_fraction > 0) plan += fmt::format(", {:g} of the optimizer offloaded", p.optimizer_offload_fraction);
  if (p.sync == m::SyncMode::diloco) plan += fmt::format(", DiLoCo H = {}", p.diloco.inner_steps);
  if (md.moe.experts > 0)
    plan += fmt::format("; experts ETP {} x EP {} ({} dispatch{})", p.etp, p.ep, model::enum_name(p.ep_dispatcher),
                        p.ep_overlap ? ", overlapped" : "");
  row(out, "Plan", plan);
  // The stack is part of the plan: say whether the scenario chose it or the sharding implied it (docs/scenarios.md,
  // "The software stack").
  row(out, "Stack", stack_source(loaded.doc) == kStackGiven
                        ? std::string(model::enum_name(p.stack))
                        : fmt::format("{} (chosen: plan.stack is not set and plan.sharding is {}; set plan.stack to "
                                      "choose another)", model::enum_name(p.stack), model::enum_name(p.sharding)));

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
      {"straggler wait", t.straggler_s}, {"EP all-to-all", t.ep_comm_s}, {"host offload", t.host_offload_s}};
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

// The bottleneck with the shares its rule read (docs/model.md §5.7): compute-bound says how much of the step the
// compute kernels fill and at what share of the peak they run; the other resources say their share of the step.
std::string bottleneck_text(const m::Estimate& e) {
  const std::string name(model::enum_name(e.bottleneck));
  const m::TimeBreakdown& t = e.time;
  if (!(e.step_time_s > 0) || e.bottleneck == m::Bottleneck::memory_capacity) return name;
  const double compute = t.compute_s + t.recompute_s;
  const double comm = t.tp_comm_s + t.pp_comm_s + t.dp_comm_s + t.wan_s + t.straggler_s + t.ep_comm_s;
  const double memory = t.memory_bound_s + t.optimizer_s + t.host_offload_s;  // host offload: §7.15, §7.16
  if (e.bottleneck == m::Bottleneck::compute)
    return fmt::format("compute: compute kernels fill {} of the step (at least {}), running at {} of the peak; "
                       "then communication {}, bubble {}, memory-bound {}",
                       percent(compute / e.step_time_s), percent(m::kComputeBoundShare),
                       compute > 0 ? percent(std::min(1.0, e.hfu * e.step_time_s / compute)) : "n/a",
                       percent(comm / e.step_time_s), percent(t.bubble_s / e.step_time_s),
                       percent(memory / e.step_time_s));
  const bool is_comm = e.bottleneck != m::Bottleneck::memory_bandwidth && e.bottleneck != m::Bottleneck::pipeline_bubble;
  return fmt::format("{}: compute kernels fill only {} of the step; {} {}", name, percent(compute / e.step_time_s),
                     is_comm ? "communication (largest part " + name + ")"
                             : e.bottleneck == m::Bottleneck::memory_bandwidth
                                 ? (t.host_offload_s > 0 ? "memory-bound kernels + optimizer + host offload"
                                                         : "memory-bound kernels + optimizer")
                                                                               : "pipeline bubble",
                     percent((is_comm ? comm : e.bottleneck == m::Bottleneck::memory_bandwidth ? memory : t.bubble_s) /
                             e.step_time_s));
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
  } else if (e.reject_reason == m::RejectReason::goodput_below_floor) {
    row(out, "Result", fmt::format("INFEASIBLE ({}): failures{} leave {} goodput, under the {} floor of a synchronous "
                                   "job (docs/model.md §10.4)",
                                   model::enum_name(e.reject_reason), e.goodput_parts.spot_preemptions ? " and spot preemptions" : "",
                                   percent(std::max(0.0, e.goodput_parts.unfloored)), percent(m::kMinSynchronousGoodput)));
  } else {
    row(out, "Result", fmt::format("INFEASIBLE ({})", model::enum_name(e.reject_reason)));
  }
  row(out, "Bottleneck", bottleneck_text(e));
  // NCCL's algorithm (or the measured profile) each island's TP, CP and DP collectives were charged with (§3.5).
  std::string charged;
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const m::CollectiveAlgorithms& c = e.islands[static_cast<std::size_t>(i)].collectives;
    if (!charged.empty()) charged += "; ";
    if (s.cluster.island_entries > 1)
      charged += std::string(s.cluster.islands[static_cast<std::size_t>(i)].name.view()) + ": ";
    charged += fmt::format("TP {}, CP {}, DP {}", m::enum_name(c.tp), m::enum_name(c.cp), m::enum_name(c.dp));
  }
  row(out, "Collectives", charged);
  out += "\n";
  describe_time(out, e);
  row(out, "Throughput", fmt::format("{} tokens/s ({} tokens/s per GPU)", grouped(e.tokens_per_s),
                                     grouped(e.tokens_per_s_per_gpu)));
  if ((s.plan.sync == m::SyncMode::diloco || e.token_efficiency != 1) && e.tokens_per_s > 0) {
    row(out, "Effective throughput",
        fmt::format("{} loss-equivalent tokens/s (token efficiency {})", grouped(e.effective_tokens_per_s),
                    percent(e.token_efficiency)));
    // Where the efficiency comes from (docs/model.md §9.7, §9.8): the batch term and the DiLoCo term.
    row(out, "Token efficiency",
        fmt::format("batch {} ({} tokens per optimizer step; optimal batch {}, noise scale {}: §9.7) x DiLoCo {} "
                    "(§9.4)",
                    percent(e.batch_efficiency), tokens(e.optimizer_batch_tokens),
                    tokens(e.optimal_batch_tokens), tokens(e.noise_batch_tokens), percent(e.diloco_efficiency)));
  }
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
  if (e.reject_reason == m::RejectReason::goodput_below_floor)  // no wall clock to give (docs/model.md §10.4)
    row(out, "Token budget", "never reached: the job restarts faster than it trains (see Result)");
  else if (s.training.tokens > 0 && e.token_efficiency != 1)
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
