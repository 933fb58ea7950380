#include "results/export/torchtitan_plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

struct Flavor {
  std::string_view name;
  std::int64_t layers, hidden, heads, kv_heads;
};
// torchtitan/models/llama3/__init__.py (v0.2.2 lines 51-100; main@b5bcd76 `_8b`, `_70b`, `_405b`).
constexpr std::array<Flavor, 3> kLlama3 = {{
    {"8B", 32, 4096, 32, 8},
    {"70B", 80, 8192, 64, 8},
    {"405B", 126, 16384, 128, 8},
}};

// The llama3 flavors' numerics: rope_theta=500000 in each (models/llama3/__init__.py), norm_eps the
// TransformerModelArgs default 1e-5 (models/llama3/model/args.py:36); main@b5bcd76 the same (ComplexRoPE.Config
// theta=500000, RMSNorm.Config eps 1e-5 in models/common/nn_modules.py).
constexpr double kLlama3RopeTheta = 500000, kLlama3NormEps = 1e-5;

struct MoeFlavor {
  std::string_view name, flavor;
  std::int64_t layers, hidden, heads, kv_heads, experts, top_k, shared_experts, expert_ffn_hidden, dense_layers;
  double rope_theta, norm_eps;
};
// torchtitan v0.2.2: models/qwen3/__init__.py:145-192, models/deepseek_v3/__init__.py:130-156 (its n_kv_heads is
// n_heads: MLA). Numerics: qwen3 rope_theta 1000000 (30B-A3B) and 5000000 (235B-A22B, where Qwen/Qwen3-235B-A22B's
// config.json has 1e6), norm_eps the Qwen3ModelArgs default 1e-6 (models/qwen3/model/args.py:33); deepseek_v3 the
// DeepSeekV3ModelArgs defaults rope_theta 10000, norm_eps 1e-5 (models/deepseek_v3/model/args.py:62, 81; the
// published config.json has rms_norm_eps 1e-6).
constexpr std::array<MoeFlavor, 3> kMoe = {{
    {"qwen3", "30B-A3B", 48, 2048, 32, 4, 128, 8, 0, 768, 0, 1e6, 1e-6},
    {"qwen3", "235B-A22B", 94, 4096, 64, 4, 128, 8, 0, 1536, 0, 5e6, 1e-6},
    {"deepseek_v3", "671B", 61, 7168, 128, 128, 256, 8, 1, 2048, 3, 10000, 1e-5},
}};

}  // namespace

std::optional<TorchtitanModel> torchtitan_v0_2_2_model(const Deployment& p) {
  const model::ModelSpec& m = p.model();
  if (m.attention_window > 0) return std::nullopt;   // no llama3 / qwen3 / deepseek_v3 flavor has sliding windows
  if (!p.moe()) {
    if (const auto flavor = llama3_flavor(p)) return TorchtitanModel{"llama3", *flavor, kLlama3RopeTheta, kLlama3NormEps};
    return std::nullopt;
  }
  for (const MoeFlavor& f : kMoe)
    if (f.layers == m.layers && f.hidden == m.hidden && f.heads == m.heads && f.kv_heads == m.kv_heads &&
        f.experts == m.moe.experts && f.top_k == m.moe.top_k && f.shared_experts == m.moe.shared_experts &&
        f.expert_ffn_hidden == m.moe.expert_ffn_hidden && f.dense_layers == m.moe.dense_layers && m.moe.moe_every == 1)
      return TorchtitanModel{f.name, f.flavor, f.rope_theta, f.norm_eps};
  return std::nullopt;
}

std::string torchtitan_numerics_mismatch(const TorchtitanModel& f, const Deployment& p) {
  const model::ModelSpec& m = p.model();
  std::string out;
  const auto differs = [](double model, double flavor) { return model > 0 && std::fabs(model - flavor) > 1e-9 * flavor; };
  if (m.position_embedding == model::PositionEmbedding::rope && differs(p.rope_theta(), f.rope_theta))
    out += fmt::format("rope_theta {} where the model has {}", f.rope_theta, p.rope_theta());
  if (differs(p.norm_eps(), f.norm_eps))
    out += fmt::format("{}norm_eps {} where the model has {}", out.empty() ? "" : ", ", f.norm_eps, p.norm_eps());
  if (out.empty()) return out;
  return fmt::format("torchtitan's {} flavor {} trains with {} (no config field changes them; the cost is the "
                     "same, the numerics differ)", f.name, f.flavor, out);
}

TorchtitanStages torchtitan_stages(std::string_view format, const Deployment& p) {
  const std::string f(format);
  const std::int64_t stages = p.plan().pp * p.plan().interleave;
  TorchtitanStages s;
  s.stages_per_rank = p.plan().interleave;
  s.schedule = p.plan().interleave > 1 ? "Interleaved1F1B" : "1F1B";
  if (p.explicit_stages())
    throw ExportError(f, fmt::format("explicit first / last stage counts ({} / {} layers; Megatron's "
                                     "--decoder-first/last-pipeline-num-layers): torchtitan splits the stages evenly, "
                                     "the embedding and head weighing plan.pp_embedding_layers / pp_head_layers",
                                     p.plan().pp_first_stage_layers, p.plan().pp_last_stage_layers));
  s.first_less = p.plan().pp_embedding_layers;
  s.last_less = p.plan().pp_head_layers;
  // torchtitan builds ceil(E / lps) virtual stages, E = L + first_less + last_less: the smallest lps giving pp x v.
  const std::int64_t effective = p.model().layers + s.first_less + s.last_less;
  for (std::int64_t lps = std::max<std::int64_t>(1, (effective + stages - 1) / stages); lps <= effective; ++lps) {
    const std::int64_t built = (effective + lps - 1) / lps;
    if (built == stages) {
      s.layers_per_stage = lps;
      return s;
    }
    if (built < stages) break;
  }
  throw ExportError(f, fmt::format("{} effective layers (layers + embedding + head weights) on {} x {} virtual "
                                   "stages: no pipeline_parallel_layers_per_stage makes torchtitan build {} stages",
                                   effective, p.plan().pp, p.plan().interleave, stages));
}

std::optional<std::string_view> llama3_flavor(const Deployment& p) {
  const model::ModelSpec& m = p.model();
  for (const Flavor& f : kLlama3)
    if (f.layers == m.layers && f.hidden == m.hidden && f.heads == m.heads && f.kv_heads == m.kv_heads) return f.name;
  return std::nullopt;
}

namespace {

TorchtitanField int_field(std::string name, std::int64_t v, std::string comment = "") {
  return {std::move(name), std::to_string(v), std::to_string(v), std::move(comment)};
}
TorchtitanField string_field(std::string name, std::string_view v, std::string comment = "") {
  // Only fixed identifiers reach here (no quotes or backslashes to escape in either syntax).
  const std::string quoted = fmt::format("\"{}\"", v);
  return {std::move(name), quoted, quoted, std::move(comment)};
}
TorchtitanField bool_field(std::string name, bool v, std::string comment = "") {
  return {std::move(name), v ? "true" : "false", v ? "True" : "False", std::move(comment)};
}

}  // namespace

std::vector<TorchtitanField> torchtitan_training_fields(TorchtitanTarget target, const Deployment& p) {
  const bool v0 = target == TorchtitanTarget::v0_2_2;
  // The tokens the plan is costed for (DiLoCo: more than training.tokens, Deployment::trained_tokens).
  const std::int64_t steps = p.train_steps();
  std::vector<TorchtitanField> f;
  if (v0) {
    // With pipeline parallelism the whole per-replica batch is the local batch, split into micro-batches of
    // micro_batch; without it each step accumulates gradients over local batches of micro_batch.
    f.push_back(int_field("local_batch_size", p.plan().pp > 1 ? p.training().micro_batch * p.grad_accum() : p.training().micro_batch));
    f.push_back(int_field("global_batch_size", p.training().global_batch,
                          p.diloco() ? "over every replica group (island): TorchFT divides it by the groups" : ""));
    f.push_back(int_field("seq_len", p.model().seq_len));
  } else {
    f.push_back(int_field("num_tokens_per_microbatch_per_dp_rank", p.training().micro_batch * p.model().seq_len,
                          fmt::format("micro-batch {} x sequence {}", p.training().micro_batch, p.model().seq_len)));
    f.push_back(int_field("num_tokens_per_train_step", p.training().global_batch * p.model().seq_len,
                          fmt::format("global batch {} x sequence {}", p.training().global_batch, p.model().seq_len)));
    f.push_back(int_field("max_context_length", p.model().seq_len));
  }
  if (steps > 0)
    f.push_back(int_field("steps", steps,
                          p.trained_tokens > p.training().tokens * (1 + 1e-9)
                              ? fmt::format("{} tokens: the budget / the plan's token efficiency",
                                            format_si(static_cast<double>(steps) * p.tokens_per_step()))
                              : "the token budget"));
  f.push_back(string_field("mixed_precision_param", "bfloat16"));
  if (!v0 && p.plan().pp > 1)
    f.push_back(bool_field("disable_cuda_graphs", true, "CUDA graphs do not support pipeline parallelism yet"));
  // plan.optimizer_offload_fraction 1 (docs/model.md §7.16): FSDP's CPU offload of parameters, gradients and optimizer
  // states (job_config.py / configs.py TrainingConfig.enable_cpu_offload at both pins).
  if (p.plan().optimizer_offload_fraction >= 1)
    f.push_back(bool_field("enable_cpu_offload", true, "optimizer_offload_fraction 1: FSDP shards and optimizer on the host"));
  return f;
}

std::optional<TorchtitanField> torchtitan_warmup_field(const Deployment& p) {
  if (!p.extras_known()) return std::nullopt;
  return int_field("warmup_steps", p.warmup_steps(),
                   p.training().warmup_tokens > 0 ? fmt::format("training.warmup_tokens {} as whole steps", format_si(p.training().warmup_tokens))
                                       : "training.warmup_tokens 0: no warm-up (torchtitan's default is 200 steps)");
}

std::string_view torchtitan_ac_mode_name(TorchtitanAcMode mode) {
  switch (mode) {
    case TorchtitanAcMode::none: return "none";
    case TorchtitanAcMode::full: return "full";
    case TorchtitanAcMode::selective: return "selective";
  }
  return "none";
}

TorchtitanCheckpointing torchtitan_checkpointing(TorchtitanTarget target, std::string_view format,
                                                 const Deployment& p) {
  if (const std::string beyond = p.recompute_modules_beyond_megatron_default(); !beyond.empty())
    throw ExportError(std::string(format), "plan.recompute_modules " + beyond + ": [activation_checkpoint] "
                                           "checkpoints whole blocks (full) or ops by policy (selective), not "
                                           "Megatron's modules");
  using Mode = TorchtitanAcMode;
  switch (p.plan().recompute) {
    case model::Recompute::none: return {Mode::none, "", ""};
    case model::Recompute::op_selective: return {Mode::selective, target == TorchtitanTarget::v0_2_2 ? "op" : "", ""};
    case model::Recompute::selective:
      return {Mode::none, "", "ShardMeter's selective = Megatron's core-attention recompute, which FlashAttention "
                              "already does inside its backward"};
    case model::Recompute::full: break;
  }
  const std::int64_t stage = p.fullest_stage_layers();
  if (p.plan().recompute_layers <= 0 || p.plan().recompute_layers >= stage) return {Mode::full, "", ""};
  if (target == TorchtitanTarget::main)
    throw ExportError(std::string(format), fmt::format("recompute_layers {} of {} blocks per stage: main's activation "
                                          "checkpointing has no layer frequency (FullAC or the per-op SelectiveAC; "
                                          "use torchtitan, the v0.2.2 TOML)", p.plan().recompute_layers, stage));
  if (stage % p.plan().recompute_layers != 0)
    throw ExportError(std::string(format), fmt::format("recompute_layers {} of {} blocks per stage: torchtitan checkpoints every "
                                          "k-th block (selective_ac_option = k), which needs the blocks per stage "
                                          "to be a multiple of it", p.plan().recompute_layers, stage));
  return {Mode::selective, std::to_string(stage / p.plan().recompute_layers),
          fmt::format("one block in {} checkpointed whole: {} of {} per stage", stage / p.plan().recompute_layers,
                      p.plan().recompute_layers, stage)};
}

std::vector<TorchtitanField> torchtitan_parallelism_fields(TorchtitanTarget target, std::string_view format,
                                                           const Deployment& p) {
  const bool v0 = target == TorchtitanTarget::v0_2_2;
  std::vector<TorchtitanField> f;
  f.push_back(int_field("data_parallel_replicate_degree", p.degrees().dp_replicate));
  f.push_back(int_field("data_parallel_shard_degree", p.degrees().dp_shard));
  // fsdp/hsdp: torchtitan's "default" reshards except under pipeline parallelism (llama3/infra/parallelize.py
  // apply_fsdp); say the plan's choice where it differs (docs/model.md §6.3).
  bool fsdp = false;
  switch (p.plan().sharding) {
    case model::Sharding::none:
    case model::Sharding::zero1:
    case model::Sharding::zero2: break;   // zero1 / zero2: refused by check_torchtitan_plan
    case model::Sharding::fsdp:
    case model::Sharding::hsdp: fsdp = true; break;
  }
  if (fsdp && p.plan().reshard_after_forward && p.plan().pp > 1)
    f.push_back(string_field("fsdp_reshard_after_forward", "always", "plan.reshard_after_forward: true"));
  if (fsdp && !p.plan().reshard_after_forward && p.plan().pp == 1)
    f.push_back(string_field("fsdp_reshard_after_forward", "never", "plan.reshard_after_forward: false"));
  f.push_back(int_field("tensor_parallel_degree", p.plan().tp));
  if (!v0 && p.plan().tp > 1) f.push_back(bool_field("enable_sequence_parallel", p.plan().sequence_parallel));
  f.push_back(int_field("pipeline_parallel_degree", p.plan().pp));
  if (p.plan().pp > 1) {
    const TorchtitanStages s = torchtitan_stages(format, p);
    f.push_back(string_field("pipeline_parallel_schedule", s.schedule));
    if (v0) f.push_back(int_field("pipeline_parallel_microbatch_size", p.training().micro_batch));
    f.push_back(int_field("pipeline_parallel_layers_per_stage", s.layers_per_stage));
    f.push_back(int_field("pipeline_parallel_first_stage_less_layers", s.first_less,
                          v0 ? "the embedding counts as this many layers" : "the embedding's weight in layers"));
    f.push_back(int_field("pipeline_parallel_last_stage_less_layers", s.last_less,
                          v0 ? "the output head counts as this many layers" : "the output head's weight in layers"));
    if (!v0) f.push_back(int_field("num_pp_microbatches", p.grad_accum()));
  }
  f.push_back(int_field("context_parallel_degree", p.plan().cp));
  if (v0 && p.moe()) {   // main has no MoE export (export_torchtitan_py.cpp)
    f.push_back(int_field("expert_parallel_degree", p.plan().ep));
    f.push_back(int_field("expert_tensor_parallel_degree", p.plan().etp));
    f.push_back(string_field("expert_parallel_comm_backend", p.plan().ep_dispatcher == model::EpDispatcher::deepep ? "deepep" : "standard"));
  }
  return f;
}

std::string toml_lines(const std::vector<TorchtitanField>& fields) {
  std::string out;
  for (const TorchtitanField& f : fields)
    out += fmt::format("{} = {}{}\n", f.name, f.toml, f.comment.empty() ? "" : "  # " + f.comment);
  return out;
}

std::string python_arguments(const std::vector<TorchtitanField>& fields, std::string_view indent) {
  std::string out;
  for (const TorchtitanField& f : fields)
    out += fmt::format("{}{}={},{}\n", indent, f.name, f.python, f.comment.empty() ? "" : "  # " + f.comment);
  return out;
}

void check_torchtitan_plan(std::string_view format, const Deployment& p) {
  const std::string f(format);
  if (p.multi_island() && !p.diloco())
    throw ExportError(f, fmt::format("a synchronous job across {} islands: torchtitan's config describes one device "
                                     "mesh with a uniform batch split, not islands joined by a WAN (use plan-json or "
                                     "torchrun)", p.islands.size()));
  switch (p.plan().sharding) {
    case model::Sharding::none:
    case model::Sharding::fsdp:
    case model::Sharding::hsdp: break;
    case model::Sharding::zero1:
      throw ExportError(f, "sharding zero1 (optimizer-state-only sharding): torchtitan shards with FSDP2 "
                           "(data_parallel_shard_degree), which also shards parameters and gradients");
    case model::Sharding::zero2:
      throw ExportError(f, "sharding zero2 (replicated parameters): torchtitan's nearest, FSDP2 with "
                           "fsdp_reshard_after_forward \"never\", also keeps each rank's parameter shard beside the "
                           "gathered weights; that is sharding fsdp with reshard_after_forward false, costed "
                           "differently (found by the import round trip, docs/import.md)");
  }
  switch (p.training().precision) {
    case model::Precision::bf16:
    case model::Precision::fp8: break;
    case model::Precision::fp16:
      throw ExportError(f, "precision fp16: training.mixed_precision_param takes bfloat16 or float32");
  }
  if (p.plan().interleave > 1 && p.plan().pp == 1) throw ExportError(f, "interleave > 1 without pipeline parallelism");
  if (p.plan().tp_comm_overlap && p.plan().tp > 1)
    throw ExportError(f, "tp_comm_overlap true: torchtitan overlaps TP communication only as async TP "
                         "(enable_async_tensor_parallel, which v0.2.2's distributed/tensor_parallel.py and main's "
                         "config/configs.py accept only with torch.compile of the model), and the plan assumes no "
                         "torch.compile");
  if (p.plan().tp_dgrad_overlap && p.plan().tp > 1)
    throw ExportError(f, "tp_dgrad_overlap true (Megatron's asynchronous column-parallel backward, docs/model.md "
                         "§4.4): torchtitan's tensor parallelism has no switch that runs it, so the plan was costed "
                         "faster than torchtitan would run it");
  if (p.model().seq_len % (p.plan().tp * 2 * p.plan().cp) != 0)
    throw ExportError(f, fmt::format("sequence length {} is not a multiple of tp x 2 x cp = {}, which torchtitan's "
                                     "sequence and context parallel split needs",
                                     p.model().seq_len, p.plan().tp * 2 * p.plan().cp));
}

}  // namespace shardmeter::results
