#include "results/export/export_formats.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "model/spec/enum_names.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/moe/moe_accuracy.hpp"
#include "results/front/calibration_marks.hpp"
#include "results/front/front_picks.hpp"
#include "results/front/plan_labels.hpp"
#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

constexpr std::array<std::string_view, 6> kNames = {"plan-json", "torchtitan", "torchtitan-py",
                                                    "megatron",  "deepspeed",  "torchrun"};

// The pinned versions: what the replay tests (tests/python/replay/) re-implement the checks of.
constexpr std::array<ExportTarget, 6> kTargets = {{
    {"shardmeter-plan", "v2", "\"schema_version\": 2, ShardMeter's own plan format, docs/export.md"},
    {"torchtitan", "v0.2.2", "pytorch/torchtitan@73a0e6979dd1 (2026-02-20), the last release that reads TOML"},
    {"torchtitan", "main@b5bcd76c66d0", "pytorch/torchtitan@b5bcd76c66d0 (2026-08-21): Python config registry"},
    {"Megatron-LM", "core_v0.19.0", "NVIDIA/Megatron-LM@5be9626709af, megatron/training/arguments.py"},
    {"DeepSpeed", "v0.16.4", "deepspeedai/DeepSpeed@e2dc3eeb1923, deepspeed/runtime/config.py"},
    {"PyTorch torchrun", "v2.6.0", "pytorch/pytorch v2.6.0, torch/distributed/run.py"},
}};

// "; MoE: 256 experts (top-8, 1 shared of 2048, expert FFN 2048), first 3 blocks dense, 58 MoE blocks, sigmoid
// router, dropless; MLA (q rank 1536, kv rank 512, rope 64, v 128)" for MoE / MLA models, "" for dense ones.
std::string moe_text(const Deployment& p) {
  const model::ModelSpec& m = p.model();
  std::string out;
  if (p.moe()) {
    out += fmt::format("; MoE: {} experts (top-{}, {} shared{}, expert FFN {}), ", m.moe.experts, m.moe.top_k, m.moe.shared_experts,
                       m.moe.shared_experts > 0 ? fmt::format(" of {}", m.moe.shared_expert_ffn_hidden) : "",
                       m.moe.expert_ffn_hidden);
    if (m.moe.dense_layers > 0) out += fmt::format("first {} blocks dense, ", m.moe.dense_layers);
    if (m.moe.moe_every > 1) out += fmt::format("every {}th block, ", m.moe.moe_every);
    out += fmt::format("{} MoE blocks", p.moe_layers());
    if (p.extras_known())
      out += fmt::format(", {} router, {}", m.moe.router,
                         m.moe.capacity_factor > 0 ? fmt::format("capacity factor {}", m.moe.capacity_factor) : "dropless");
    if (m.mtp_layers > 0) out += fmt::format(", {} MTP layer(s)", m.mtp_layers);
    if (m.moe.activation_clamp > 0) out += fmt::format(", expert activation clamped at {}", m.moe.activation_clamp);
  }
  if (m.yarn_factor > 1) out += fmt::format("; YaRN rotary scaling factor {}", m.yarn_factor);
  if (m.attention_window > 0)
    out += m.full_attention_every > 0
               ? fmt::format("; sliding window of {} tokens, every {}th block full", m.attention_window,
                             m.full_attention_every)
               : fmt::format("; sliding window of {} tokens in every block", m.attention_window);
  if (p.mla())
    out += fmt::format("; MLA (q rank {}, kv rank {}, rope {}, v {})", m.mla.q_lora_rank, m.mla.kv_lora_rank, m.mla.rope_head_dim,
                       p.v_head_dim());
  return out;
}

std::string model_line(const Deployment& p) {
  const model::ModelSpec& m = p.model();
  return fmt::format("model: {} layers, hidden {}, {} heads ({} KV, head dim {}), FFN {} ({}), vocab {}, sequence {}; "
                     "{}, {} position embedding, {} embeddings, {}",
                     m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn_hidden, m.ffn_type, m.vocab, m.seq_len,
                     m.norm, m.position_embedding, m.tied_embeddings ? "tied" : "untied",
                     m.bias ? "linear biases" : "no linear biases") +
         moe_text(p);
}

}  // namespace

std::span<const std::string_view> export_format_names() { return kNames; }

std::optional<ExportFormat> parse_export_format(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<ExportFormat>(i);
  return std::nullopt;
}

std::string_view to_string(ExportFormat format) noexcept { return kNames[static_cast<std::size_t>(format)]; }

const ExportTarget& export_target(ExportFormat format) noexcept { return kTargets[static_cast<std::size_t>(format)]; }

Exported export_plan(ExportFormat format, const Deployment& plan, const ExportSource& source) {
  // DeepSeek-V3's schedule and activation cache (docs/model.md §5.8, §7.12, docs/export.md): DualPipe is
  // deepseek-ai/DualPipe, a library of its own, which neither Megatron-LM core_v0.19.0, DeepSpeed v0.16.4 nor
  // torchtitan runs (torchtitan's DualPipeV is the V-shaped variant: pp/2 ranks of two chunks each, a different
  // placement), and none of them stores the attention output in E5M6.
  if (format != ExportFormat::plan_json && format != ExportFormat::torchrun) {
    const std::string name(to_string(format));
    switch (plan.plan().pipeline_schedule) {
      case model::PipelineSchedule::one_f_one_b: break;
      case model::PipelineSchedule::dualpipe:
        throw ExportError(name, "plan.pipeline_schedule " + std::string(model::enum_name(plan.plan().pipeline_schedule)) +
                                    ": DeepSeek's DualPipe (deepseek-ai/DualPipe) is not a schedule this framework runs");
    }
    if (plan.plan().fp8_activation_cache)
      throw ExportError(name, "plan.fp8_activation_cache: DeepSeek-V3's E5M6 / fp8 activation cache is not a switch "
                              "of this framework");
    // Host-memory offload (docs/model.md §7.15, §7.16): only Megatron-Core offloads a layer's saved activations
    // (--cpu-offloading-num-layers); torchtitan's enable_cpu_offload moves every FSDP shard or none.
    if (plan.plan().activation_offload_layers > 0 && format != ExportFormat::megatron)
      throw ExportError(name, fmt::format("plan.activation_offload_layers {}: offloading a layer's saved activations "
                                          "is Megatron-Core's --cpu-offloading-num-layers, not a switch of this "
                                          "framework", plan.plan().activation_offload_layers));
    const bool torchtitan = format == ExportFormat::torchtitan || format == ExportFormat::torchtitan_py;
    if (torchtitan && plan.plan().optimizer_offload_fraction > 0 && plan.plan().optimizer_offload_fraction < 1)
      throw ExportError(name, fmt::format("plan.optimizer_offload_fraction {}: training.enable_cpu_offload offloads "
                                          "every FSDP shard (parameters, gradients, optimizer state) or none",
                                          plan.plan().optimizer_offload_fraction));
  }
  switch (format) {
    case ExportFormat::plan_json: return export_plan_json(plan, source);
    case ExportFormat::torchtitan: return export_torchtitan(plan, source);
    case ExportFormat::torchtitan_py: return export_torchtitan_py(plan, source);
    case ExportFormat::megatron: return export_megatron(plan, source);
    case ExportFormat::deepspeed: return export_deepspeed(plan, source);
    case ExportFormat::torchrun: return export_torchrun(plan, source);
  }
  return {};
}

std::string calibration_line(const Deployment& plan, const Row& row, const RunInfo& info) {
  std::vector<std::string> gpus;
  for (const DeployIsland& d : plan.islands)
    if (std::find(gpus.begin(), gpus.end(), d.gpu) == gpus.end()) gpus.push_back(d.gpu);
  if (!info.uncalibrated_gpus) return "calibration: unknown (the front file predates calibration status, schema_version 3)";
  std::string out;
  for (const std::string& g : gpus) {
    // Per (GPU type, the row's stack): B200 is fitted for megatron_te only (results/front/calibration_marks.hpp).
    const bool uncalibrated = gpu_calibration(info, row, g, stack_name(plan)) == RowCalibration::uncalibrated;
    out += (out.empty() ? "" : "; ") + g +
           (uncalibrated ? " UNCALIBRATED: no published run fits its efficiency constants, the predicted figures are "
                           "extrapolated from matmul benchmarks"
                         : " calibrated against published runs");
  }
  return "calibration: " + out;
}

namespace {

// "accuracy: ..." header lines: the MoE accuracy warnings an estimate of the plan carries (docs/model.md §15.8).
std::vector<std::string> accuracy_lines(ExportFormat format, const Deployment& plan) {
  if (!plan.moe()) return {};
  // The rule of docs/model.md §15.8 on the exported plan. The Megatron file runs Megatron-Core whatever the
  // scenario's stack; the other formats run the row's stack (the scenario default when it is not known).
  // The columns' part of the model only, as the warnings were always computed for exports (the expert activation
  // clamp of a rebuilt scenario is left out).
  model::ModelSpec m;
  m.layers = plan.model().layers;
  m.bias = plan.model().bias;
  m.moe.experts = plan.model().moe.experts;
  m.moe.dense_layers = plan.model().moe.dense_layers;
  m.moe.moe_every = plan.model().moe.moe_every;
  model::PlanSpec p;
  p.ep = plan.plan().ep;
  p.stack = plan.plan().stack;
  if (format == ExportFormat::megatron) p.stack = model::Stack::megatron_te;
  else if (!plan.record.stack_known) p.stack = model::PlanSpec{}.stack;
  // The warnings' precision: fp8 or not (the 16-bit formats are costed alike).
  model::Precision precision = model::Precision::bf16;
  switch (plan.training().precision) {
    case model::Precision::bf16:
    case model::Precision::fp16: break;
    case model::Precision::fp8: precision = model::Precision::fp8; break;
  }
  const std::uint32_t bits = model::moe_accuracy_warnings(m, p, precision);
  std::vector<std::string> out;
  for (const model::WarningText& w : model::kWarningTexts)
    if ((bits & model::bit(w.warning)) != 0) out.push_back(fmt::format("accuracy: {} ({})", w.text, w.name));
  return out;
}

}  // namespace

std::string stack_name(const Deployment& plan) {
  return plan.record.stack_known ? std::string(model::enum_name(plan.plan().stack)) : std::string();
}

std::vector<std::string> export_header_lines(ExportFormat format, const Deployment& plan, const ExportSource& source) {
  const Row& r = *source.row;
  const ExportTarget& target = export_target(format);
  // Names come from files and may hold anything: every line stays one line.
  std::vector<std::string> lines;
  lines.push_back(comment_text(fmt::format("ShardMeter {} plan export ({})", source.info->version, to_string(format))));
  lines.push_back(comment_text(fmt::format("target: {} {} ({})", target.framework, target.version, target.pinned)));
  lines.push_back(comment_text(fmt::format("source: scenario {}, front row {} (pick {}) of {}",
                                           source.info->scenario_name, row_number(plan.record.row), source.pick,
                                           source.front_path)));
  lines.push_back(comment_text("plan: " + plan_summary(plan.record)));
  lines.push_back(comment_text(model_line(plan)));
  const double tokens_per_s = plan.metric(model::metric("tokens_per_s"));
  const double effective = plan.metric(model::metric("effective_tokens_per_s"));
  std::string speed = format_si(tokens_per_s) + " tokens/s";
  // Effective tokens/s whenever a token is worth less than one (DiLoCo, a batch past the optimal batch: §9.8).
  if (plan.diloco() || effective < tokens_per_s) speed += " (" + format_si(effective) + " effective)";
  // The plan line names the stack from the row's column; a file written before that column takes it from the
  // rebuilt scenario.
  if (!plan.record.stack_in_row)
    lines.push_back(comment_text(fmt::format("stack: {} (the efficiency set the prediction used)",
                                             plan.record.stack_known ? stack_name(plan) : "unknown")));
  const std::string budget =
      plan.trained_tokens > plan.training().tokens * (1 + 1e-9)
          ? fmt::format("{} tokens ({} trained at the plan's token efficiency)", format_si(plan.training().tokens),
                        format_si(plan.trained_tokens))
          : format_si(plan.training().tokens) + " tokens";
  lines.push_back(comment_text(fmt::format("length: {} optimizer steps of {} tokens = {} tokens trained",
                                           plan.train_steps(), format_si(plan.tokens_per_step()),
                                           format_si(static_cast<double>(plan.train_steps()) * plan.tokens_per_step()))));
  lines.push_back(comment_text(fmt::format("predicted: {} for {}, {}, {} days, MFU {}, bottleneck {}",
                                           format_usd(plan.metric(model::metric("total_cost_usd"))), budget,
                                           speed, format_fixed(plan.metric(model::metric("wall_clock_days")), 1),
                                           format_percent(plan.metric(model::metric("mfu"))),
                                           model::enum_name(plan.record.estimate.bottleneck))));
  lines.push_back(comment_text(calibration_line(plan, r, *source.info)));
  for (const std::string& a : accuracy_lines(format, plan)) lines.push_back(comment_text(a));
  // The row's other warnings (warning_bits): an estimate resting on a model beyond its fitted data, the batch term
  // (docs/model.md §9.7) or DiLoCo's convergence (§9.4); the MoE lines above are recomputed for the exported stack.
  {
    const double bits = plan.metric(model::metric("warning_bits"));
    const std::uint32_t range = bits > 0 && bits < 4294967296.0
                                    ? static_cast<std::uint32_t>(bits) & ~model::kMoeAccuracyWarnings
                                    : 0u;
    for (const model::WarningText& w : model::kWarningTexts)
      if ((range & model::bit(w.warning)) != 0)
        lines.push_back(comment_text(fmt::format("warning: {} ({})", w.text, w.name)));
  }
  return lines;
}

std::string export_header_comment(ExportFormat format, const Deployment& plan, const ExportSource& source) {
  std::string out;
  for (const std::string& line : export_header_lines(format, plan, source)) out += "# " + line + "\n";
  return out;
}

void require_single_uniform_job(std::string_view format, const Deployment& plan) {
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
