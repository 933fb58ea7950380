// megatron: Megatron-LM arguments as a bash array, to splice into a pretrain_gpt.py launch:
//   source plan.megatron.sh && torchrun ... pretrain_gpt.py "${MEGATRON_ARGS[@]}" <data, tokenizer, optimizer arguments>
// Pinned to NVIDIA/Megatron-LM core_v0.19.0 (commit 5be9626709af). Names and the checks they must pass, in
// megatron/training/arguments.py (A) and megatron/core/transformer/transformer_config.py (TC) at that tag:
//   model     --num-layers, --hidden-size, --num-attention-heads, --group-query-attention --num-query-groups,
//             --ffn-hidden-size, --kv-channels, --seq-length, --max-position-embeddings, --position-embedding-type
//             {learned_absolute, rope}, --swiglu, --normalization {LayerNorm, RMSNorm},
//             --untie-embeddings-and-output-weights, --disable-bias-linear (A:2299-2377, TC:65-249)
//   layout    --tensor-model-parallel-size, --pipeline-model-parallel-size, --context-parallel-size,
//             --sequence-parallel, --num-virtual-stages-per-pipeline-rank (A:2961-2963), and the model's pipeline
//             split (docs/model.md §5.4): --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers
//             (A:2942-2946; TC:1988-2062: the remaining layers split evenly over the remaining stages),
//             --account-for-embedding/loss-in-pipeline-split (TC:2064-2109), or --pipeline-model-parallel-layout
//             (A:2950-2957, A:894-918; TC:104-127 and validate_layer_layout in pipeline_parallel_layer_layout.py)
//   batch     --micro-batch-size, --global-batch-size (global % (micro x dp) == 0, num_microbatches_calculator.py)
//   memory    --recompute-granularity {full, selective}, --recompute-method uniform, --recompute-num-layers 1,
//             --use-distributed-optimizer, --use-megatron-fsdp with --data-parallel-sharding-strategy
//             {optim_grads, optim_grads_params} and --ckpt-format fsdp_dtensor (A:1100-1147, A:1620-1621)
//   overlap   --overlap-grad-reduce, --overlap-param-gather (needs the former and a distributed optimizer,
//             A:990-995), --tp-comm-overlap (needs --sequence-parallel, A:1401-1402)
//   numerics  --bf16, --fp16, --fp8-format hybrid
// TP or CP without Megatron-FSDP on GPUs older than Blackwell needs CUDA_DEVICE_MAX_CONNECTIONS=1 (A:1413-1439); with
// Megatron-FSDP it must not be 1 (A:1143-1144): the file exports it when needed.
// Mixture of experts (docs/moe.md; flags from A:3348-3378 (_add_moe_args), A:3380-3392 (_add_mla_args) and the
// TransformerConfig / ModelParallelConfig fields the parser generates, A:2195-2291, argument_utils.py:95-212):
//   experts   --num-experts, --moe-router-topk, --moe-ffn-hidden-size (TC:719), --moe-shared-expert-intermediate-size
//             = shared experts x their width (TC:680, 1637-1643), --moe-layer-freq as a 0/1 pattern when the first
//             blocks are dense or only every n-th block is MoE (A:326-349; gpt_layer_specs.py:643-661: its length
//             must be the layer count), --moe-grouped-gemm (compute capability >= 8, A:1338-1340),
//             --moe-router-score-function sigmoid with --moe-router-enable-expert-bias for DeepSeek-V3's
//             aux-loss-free router (TC:787, 795, 2284-2292), --moe-expert-capacity-factor (dropless without it,
//             TC:888, 1660-1684), --mtp-num-layers (TC:68, A:855-860: rope only)
//   layout    --expert-model-parallel-size (EP divides the experts, A:1599-1603), --expert-tensor-parallel-size
//             (defaults to tp, A:569-570; ETP x EP x PP divides the world, parallel_state.py:874-884; biases only with
//             ETP 1, TC:2279-2282); MoE with tp > 1 needs --sequence-parallel (moe_layer.py:629-633)
//   dispatch  --moe-token-dispatcher-type alltoall, or flex with --moe-flex-dispatcher-backend deepep and
//             --moe-router-dtype fp32 (TC:862-869; token_dispatcher.py:1303-1309 warns and casts other probs to
//             fp32, 1769-1770 needs ETP x EP > 1); --overlap-moe-expert-parallel-comm (MPC:343; TC:2669-2713: EP > 1, alltoall or flex,
//             virtual pipeline stages when pp > 1, no full recompute, no moe recompute module, bf16/fp16, MTP <= 1)
//   recompute --recompute-modules core_attn / moe_act / moe under selective granularity (TC:546, 1763-1832: moe_act
//             needs --moe-grouped-gemm and is not supported with fp8 delayed scaling)
//   MLA       --multi-latent-attention (TC:281, not with --group-query-attention A:1892-1893), --q-lora-rank,
//             --kv-lora-rank, --qk-head-dim, --qk-pos-emb-head-dim, --v-head-dim (A:3380-3392)
// The load-balancing loss (--moe-router-load-balancing-type, --moe-aux-loss-coeff) is no ShardMeter key: Megatron's
// default applies and a note says so.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "results/export/export_formats.hpp"
#include "results/export/torchtitan_plan.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "megatron";

// How Megatron-Core is told the model's pipeline split (model/parallel/pipeline_stages.hpp, docs/model.md §5.4), in the order
// of preference: nothing (even), --decoder-first/last-pipeline-num-layers (the plan's explicit counts),
// --account-for-embedding/loss-in-pipeline-split (the balanced split with weights 0 or 1 that divides evenly, which
// is Megatron's own rule), else --pipeline-model-parallel-layout, one '|'-separated entry per virtual stage, virtual
// stage i on rank i % pp (TC:104-127), which states any split.
struct MegatronSplit {
  std::int64_t first = 0, last = 0;                  // explicit counts (0: not set)
  bool account_embedding = false, account_loss = false;
  std::string layout;                                // --pipeline-model-parallel-layout, or empty
};

std::string stage_text(std::int64_t blocks) {
  if (blocks <= 0) return "";
  return blocks == 1 ? "t" : fmt::format("t*{}", blocks);
}

MegatronSplit megatron_split(const Deployment& p) {
  MegatronSplit s;
  if (p.plan().pp <= 1) return s;
  if (p.explicit_stages()) {
    s.first = p.plan().pp_first_stage_layers;
    s.last = p.plan().pp_last_stage_layers;
    return s;
  }
  const std::int64_t e = p.plan().pp_embedding_layers, h = p.plan().pp_head_layers, stages = p.plan().pp * p.plan().interleave;
  const std::int64_t effective = p.model().layers + e + h;
  if (effective % stages == 0 && e <= 1 && h <= 1) {
    s.account_embedding = e == 1;
    s.account_loss = h == 1;
    return s;
  }
  const std::int64_t base = effective / stages, extra = effective % stages;
  for (std::int64_t i = 0; i < stages; ++i) {
    std::int64_t blocks = base + (i < extra ? 1 : 0);
    if (i == 0) blocks -= e;
    if (i == stages - 1) blocks -= h;
    if (i > 0) s.layout += '|';
    if (i == 0) s.layout += 'E';
    s.layout += stage_text(blocks);
    if (i == stages - 1) s.layout += 'L';
  }
  return s;
}

// A real number as a flag value: integers without a decimal point (500000), others in the shortest form that reads
// back exactly (1e-06).
std::string flag_number(double v) {
  if (v == static_cast<double>(static_cast<std::int64_t>(v)) && v < 1e15) return std::to_string(static_cast<std::int64_t>(v));
  return fmt::format("{}", v);
}

bool blackwell(const std::string& gpu) { return gpu == "b200" || gpu == "gb200" || gpu == "b300" || gpu == "gb300"; }

// --moe-layer-freq as Megatron's pattern expression (A:244-252 allows digits, [ ] ( ) + * and commas): block i is
// MoE when i >= dense_layers and (i - dense_layers) % moe_every == 0, as model/kernels/moe_layers.hpp counts them.
// "" when every block is MoE (the default 1).
std::string moe_layer_pattern(const Deployment& p) {
  const model::ModelSpec& m = p.model();
  const std::int64_t dense = std::min(m.moe.dense_layers, m.layers), every = std::max<std::int64_t>(1, m.moe.moe_every);
  if (dense == 0 && every == 1) return "";
  const std::int64_t after = m.layers - dense, periods = after / every, rest = after % every;
  std::string out = dense > 0 ? fmt::format("[0]*{}", dense) : "";
  const auto add = [&](const std::string& term) { out += (out.empty() ? "" : "+") + term; };
  if (every == 1) {
    if (after > 0) add(fmt::format("[1]*{}", after));
  } else {
    if (periods > 0) add(fmt::format("([1]+[0]*{})*{}", every - 1, periods));
    if (rest > 0) add(rest == 1 ? std::string("[1]") : fmt::format("[1]+[0]*{}", rest - 1));
  }
  return "(" + out + ")";
}

void check_moe(const Deployment& p) {
  const model::ModelSpec& m = p.model();
  if (!p.moe()) {
    if (p.plan().ep > 1 || p.plan().etp > 1)
      throw ExportError(kFormat, fmt::format("ep {} / etp {} on a dense model: expert parallelism needs experts "
                                             "(A:1599-1603)", p.plan().ep, p.plan().etp));
    return;
  }
  if (!p.extras_known())
    throw ExportError(kFormat, "an MoE row whose router, capacity factor, MTP depth, MLA ranks and plan.moe_recompute "
                               "no column holds, and the row's scenario could not be rebuilt from the front file "
                               "(the note above says why; search again with this catalog)");
  // gpt-oss (Megatron-Bridge v0.4.2 gpt_oss_bridge.py GPTOSSBridge: quick_gelu with glu_linear_offset 1.0 and
  // activation_func_clamp_value 7.0, softmax_type learnable, window_size (127, 0) with window_attn_skip_freq 2, YaRN).
  // core_v0.19.0 builds a flag for each of these TransformerConfig fields (TC:163, :224-244; A:2290-2291), but the
  // model keys hold the clamp, the YaRN factor and the window, not the linear offset or the attention sinks: a file
  // from them would train another model.
  if (m.moe.activation_clamp > 0)
    throw ExportError(kFormat, fmt::format(
        "clamped experts (model.expert_activation_clamp {}, gpt-oss): Megatron-LM needs the whole gpt-oss block "
        "(--quick-geglu --glu-linear-offset 1 --activation-func-clamp-value, --softmax-type learnable, --window-size "
        "with --window-attn-skip-freq, YaRN; TC:163, :224-244), and the model keys do not hold its linear offset or "
        "attention sinks: export plan-json and apply it to Megatron-Bridge's gpt-oss recipe",
        m.moe.activation_clamp));
  if (m.moe.experts % p.plan().ep != 0)
    throw ExportError(kFormat, fmt::format("{} experts on ep {}: the experts must be a multiple of EP (A:1602-1603)",
                                           m.moe.experts, p.plan().ep));
  if (p.plan().tp > 1 && !p.plan().sequence_parallel)
    throw ExportError(kFormat, fmt::format("an MoE model on tp {} without sequence parallelism: Megatron's MoE layer "
                                           "refuses to train so (moe_layer.py:629-633)", p.plan().tp));
  if (m.bias && p.plan().etp > 1)
    throw ExportError(kFormat, fmt::format("linear biases with etp {}: Megatron supports biases in MoE layers only with "
                                           "ETP 1 (TC:2279-2282)", p.plan().etp));
  if (p.plan().ep_dispatcher == model::EpDispatcher::deepep && p.plan().ep * p.plan().etp == 1)
    throw ExportError(kFormat, "the DeepEP dispatcher with ep 1 and etp 1: Megatron's flex dispatcher needs "
                               "ETP x EP > 1 (token_dispatcher.py:1769-1770)");
  if (p.plan().moe_recompute == model::MoeRecompute::activation && p.training().precision == model::Precision::fp8 && p.plan().recompute != model::Recompute::full)
    throw ExportError(kFormat, "moe_recompute activation with fp8: the moe_act recompute module does not support the "
                               "delayed-scaling recipe the export uses (TC:1822-1827)");
  if (p.plan().ep_overlap) {
    const auto refuse = [&](const std::string& why) {
      throw ExportError(kFormat, "plan.ep_overlap (--overlap-moe-expert-parallel-comm) with " + why);
    };
    if (p.plan().ep == 1) refuse("ep 1: it needs expert parallelism (TC:2680-2682)");
    if (p.plan().pp > 1 && p.plan().interleave == 1)
      refuse(fmt::format("pp {} and no virtual pipeline stages: Megatron asserts "
                         "virtual_pipeline_model_parallel_size is set when pp > 1 (TC:2670-2675)", p.plan().pp));
    if (p.plan().recompute == model::Recompute::full) refuse("full recompute (TC:2688-2690)");
    if (p.plan().moe_recompute == model::MoeRecompute::layer) refuse("moe_recompute layer: the moe recompute module is not allowed (TC:2697-2699)");
    if (m.mtp_layers > 1) refuse(fmt::format("{} MTP layers: at most one (TC:2709-2713)", m.mtp_layers));
  }
  if (m.mtp_layers > 0 && m.position_embedding != model::PositionEmbedding::rope)
    throw ExportError(kFormat, "multi-token prediction without rope position embeddings (A:855-860)");
}

void check(const Deployment& p) {
  if (p.plan().recompute == model::Recompute::op_selective)
    throw ExportError(kFormat, "recompute op_selective (torchtitan's per-op policy): Megatron's selective granularity "
                               "recomputes whole modules (--recompute-modules), not every second matmul");
  if (p.plan().recompute == model::Recompute::full && p.plan().recompute_layers > 0 &&
      p.recomputed_stage_layers() % p.plan().interleave != 0)
    throw ExportError(kFormat, fmt::format("recompute_layers {} on {} virtual stages per GPU: --recompute-num-layers "
                                           "counts per virtual stage, so it must divide evenly",
                                           p.plan().recompute_layers, p.plan().interleave));
  switch (p.plan().sharding) {
    case model::Sharding::none:
    case model::Sharding::zero1:
    case model::Sharding::zero2: break;
    case model::Sharding::fsdp:
    case model::Sharding::hsdp:
      if (!p.plan().reshard_after_forward)
        throw ExportError(kFormat, "reshard_after_forward false: Megatron-FSDP has no verified switch that keeps "
                                   "parameters gathered from forward to backward (use sharding zero2 for that layout)");
      break;
  }
  require_single_uniform_job(kFormat, p);
  if (p.plan().sharding == model::Sharding::hsdp)
    throw ExportError(kFormat, "sharding hsdp (shard within groups, replicate across them): no verified Megatron-LM "
                               "argument set expresses it (use torchtitan or plan-json)");
  switch (p.model().position_embedding) {
    case model::PositionEmbedding::learned:
    case model::PositionEmbedding::rope: break;
    case model::PositionEmbedding::alibi:
      throw ExportError(kFormat, "ALiBi position embeddings: --position-embedding-type has learned_absolute, rope, "
                                 "yarn, mrope, relative and none");
  }
  if (p.model().kv_heads % p.plan().tp != 0 && p.plan().tp % p.model().kv_heads != 0)
    throw ExportError(kFormat, fmt::format("{} key/value heads on tp {}: Megatron needs one to divide the other",
                                           p.model().kv_heads, p.plan().tp));
  check_moe(p);
  // --position-embedding-type yarn (A:2315) reads yarn_rotary_scaling_factor with the original context length and
  // the beta corrections (gpt_model.py:190-201), which no model key holds besides the factor.
  if (p.model().yarn_factor > 1)
    throw ExportError(kFormat, fmt::format("YaRN rotary scaling (model.yarn_factor {}): Megatron's yarn embedding "
                                           "also needs the original context length and beta corrections "
                                           "(--yarn-original-max-position-embeddings, --yarn-beta-fast / -slow, A:2315-2326), "
                                           "which the model keys do not hold", p.model().yarn_factor));
  if (p.model().position_embedding == model::PositionEmbedding::rope && p.rope_theta() > 0 &&
      p.rope_theta() != static_cast<double>(static_cast<std::int64_t>(p.rope_theta())))
    throw ExportError(kFormat, fmt::format("model.rope_theta {}: --rotary-base takes an integer (A: type=int)",
                                           p.rope_theta()));
  if (p.plan().cp > 1 && p.model().seq_len % (2 * p.plan().cp) != 0)
    throw ExportError(kFormat, fmt::format("sequence length {} with cp {}: Megatron needs it divisible by 2 x cp",
                                           p.model().seq_len, p.plan().cp));
}

}  // namespace

Exported export_megatron(const Deployment& p, const ExportSource& source) {
  check(p);
  const MegatronSplit split = megatron_split(p);
  bool fsdp = false;   // Megatron-FSDP's optim_grads (zero2) or optim_grads_params (fsdp)
  switch (p.plan().sharding) {
    case model::Sharding::none:
    case model::Sharding::zero1:
    case model::Sharding::hsdp: break;   // hsdp: refused by check()
    case model::Sharding::zero2:
    case model::Sharding::fsdp: fsdp = true; break;
  }
  Exported out;
  std::string& t = out.text;
  t = export_header_comment(ExportFormat::megatron, p, source);
  t += fmt::format("# world size {} = tp {} x pp {} x cp {} x dp {}; {} micro-batches of {} per replica per step\n",
                   p.total_gpus(), p.plan().tp, p.plan().pp, p.plan().cp, p.degrees().data_parallel, p.grad_accum(), p.training().micro_batch);
  if (p.moe())
    t += fmt::format("# experts: {} routed (top-{}) in {} of {} blocks; world size {} = etp {} x ep {} x pp {} x edp {} "
                     "(parallel folding)\n",
                     p.model().moe.experts, p.model().moe.top_k, p.moe_layers(), p.model().layers, p.total_gpus(), p.plan().etp, p.plan().ep,
                     p.plan().pp, p.expert_data_parallel());
  t += fmt::format("# vocabulary: {} tokens, set by your tokenizer arguments\n", p.model().vocab);
  if ((p.plan().tp > 1 || p.plan().cp > 1) && !fsdp && !blackwell(p.islands.front().gpu))
    t += "export CUDA_DEVICE_MAX_CONNECTIONS=1  # TP/CP communication overlap on GPUs before Blackwell\n";
  t += "MEGATRON_ARGS=(\n";
  const auto arg = [&](std::string_view line) { t += "  " + std::string(line) + "\n"; };
  const model::ModelSpec& m = p.model();
  arg(fmt::format("--num-layers {}", m.layers));
  arg(fmt::format("--hidden-size {}", m.hidden));
  arg(fmt::format("--num-attention-heads {}", m.heads));
  if (p.mla()) {
    // MLA replaces grouped-query attention (A:1892-1893); head_dim is the part of a query/key head without RoPE.
    arg("--multi-latent-attention");
    if (m.mla.q_lora_rank > 0) arg(fmt::format("--q-lora-rank {}", m.mla.q_lora_rank));
    arg(fmt::format("--kv-lora-rank {}", m.mla.kv_lora_rank));
    arg(fmt::format("--qk-head-dim {}", m.head_dim));
    arg(fmt::format("--qk-pos-emb-head-dim {}", m.mla.rope_head_dim));
    arg(fmt::format("--v-head-dim {}", p.v_head_dim()));
  } else if (m.kv_heads != m.heads) {
    arg("--group-query-attention");
    arg(fmt::format("--num-query-groups {}", m.kv_heads));
  }
  arg(fmt::format("--ffn-hidden-size {}", m.ffn_hidden));
  if (!p.mla() && (m.head_dim * m.heads != m.hidden || m.hidden % m.heads != 0))
    arg(fmt::format("--kv-channels {}", m.head_dim));
  arg(fmt::format("--seq-length {}", m.seq_len));
  arg(fmt::format("--max-position-embeddings {}", m.seq_len));
  switch (m.position_embedding) {
    case model::PositionEmbedding::rope: arg("--position-embedding-type rope"); break;
    case model::PositionEmbedding::learned:
    case model::PositionEmbedding::alibi: arg("--position-embedding-type learned_absolute"); break;   // alibi: refused
  }
  // Sliding windows (A:2301-2306, tuple_type A:376-386; TC:240-247): window_size (left, right) counts the keys
  // before the query, so a window of w keys with the query is (w - 1, 0); every N-th block full
  // (transformer/utils.py is_layer_window_attention: layer_number % N != 0 is windowed).
  if (m.attention_window > 0) arg(fmt::format("--window-size {},0", m.attention_window - 1));
  if (m.attention_window > 0 && m.full_attention_every > 0)
    arg(fmt::format("--window-attn-skip-freq {}", m.full_attention_every));
  // RoPE base and norm epsilon (A: --rotary-base, default 10000; --norm-epsilon, default 1e-5): model.rope_theta and
  // model.norm_eps of the rebuilt scenario, written always, so the file says them whatever Megatron's defaults. A
  // front row whose scenario was not rebuilt has neither: a model with a llama3 flavor's dimensions then gets
  // Llama 3's 500,000 (Llama Team 2024, arXiv 2407.21783 §3.2.1; torchtitan models/llama3/__init__.py).
  if (m.position_embedding == model::PositionEmbedding::rope) {
    if (p.rope_theta() > 0) arg("--rotary-base " + flag_number(p.rope_theta()));
    else if (llama3_flavor(p)) arg("--rotary-base 500000");
  }
  if (p.norm_eps() > 0) arg("--norm-epsilon " + flag_number(p.norm_eps()));
  // Vocabulary padding: Megatron pads the tokenizer's vocabulary to a multiple of make_vocab_size_divisible_by x tp
  // (megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding, default 128); the largest power of two up
  // to 128 that keeps the costed vocabulary unpadded is written (Llama-3's 128,256 on tp 8: 32).
  if (m.vocab % p.plan().tp == 0) {
    std::int64_t divisor = 1;
    while (divisor < 128 && (m.vocab / p.plan().tp) % (divisor * 2) == 0) divisor *= 2;
    arg(fmt::format("--make-vocab-size-divisible-by {}", divisor));
  }
  switch (m.ffn_type) {
    case model::FfnType::gelu: break;   // Megatron's default activation
    case model::FfnType::swiglu: arg("--swiglu"); break;
  }
  switch (m.norm) {
    case model::NormType::layernorm: arg("--normalization LayerNorm"); break;
    case model::NormType::rmsnorm: arg("--normalization RMSNorm"); break;
  }
  if (!m.tied_embeddings) arg("--untie-embeddings-and-output-weights");
  if (!m.bias) arg("--disable-bias-linear");
  // Megatron's dropout defaults to 0.1 (A: --attention-dropout, --hidden-dropout): a model costed without dropout
  // must say so, or Megatron trains with the masks' memory the plan left out (found by the import round trip).
  if (!m.dropout) {
    arg("--attention-dropout 0");
    arg("--hidden-dropout 0");
  }
  if (p.moe()) {
    arg(fmt::format("--num-experts {}", m.moe.experts));
    arg(fmt::format("--moe-router-topk {}", m.moe.top_k));
    arg(fmt::format("--moe-ffn-hidden-size {}", m.moe.expert_ffn_hidden));
    if (m.moe.shared_experts > 0)
      arg(fmt::format("--moe-shared-expert-intermediate-size {}", m.moe.shared_experts * m.moe.shared_expert_ffn_hidden));
    if (const std::string pattern = moe_layer_pattern(p); !pattern.empty())
      arg(fmt::format("--moe-layer-freq \"{}\"", pattern));
    arg("--moe-grouped-gemm");
    if (m.moe.router == model::MoeRouter::sigmoid) {
      arg("--moe-router-score-function sigmoid");
      arg("--moe-router-enable-expert-bias");
    }
    if (m.moe.capacity_factor > 0) arg(fmt::format("--moe-expert-capacity-factor {}", m.moe.capacity_factor));
    if (m.mtp_layers > 0) arg(fmt::format("--mtp-num-layers {}", m.mtp_layers));
  }

  arg(fmt::format("--tensor-model-parallel-size {}", p.plan().tp));
  arg(fmt::format("--pipeline-model-parallel-size {}", p.plan().pp));
  arg(fmt::format("--context-parallel-size {}", p.plan().cp));
  // The layout names the virtual stages itself (A:894-918: not together with the virtual-stage count).
  if (!split.layout.empty()) {
    arg(fmt::format("--pipeline-model-parallel-layout '{}'", split.layout));
  } else if (p.plan().interleave > 1) {
    arg(fmt::format("--num-virtual-stages-per-pipeline-rank {}", p.plan().interleave));
  }
  if (p.moe()) {
    arg(fmt::format("--expert-model-parallel-size {}", p.plan().ep));
    arg(fmt::format("--expert-tensor-parallel-size {}", p.plan().etp));
    if (p.plan().ep_dispatcher == model::EpDispatcher::deepep) {
      arg("--moe-token-dispatcher-type flex");
      arg("--moe-flex-dispatcher-backend deepep");
      arg("--moe-router-dtype fp32");
    } else {
      arg("--moe-token-dispatcher-type alltoall");
    }
    if (p.plan().ep_overlap) arg("--overlap-moe-expert-parallel-comm");
  }
  if (split.first > 0) arg(fmt::format("--decoder-first-pipeline-num-layers {}", split.first));
  if (split.last > 0) arg(fmt::format("--decoder-last-pipeline-num-layers {}", split.last));
  if (split.account_embedding) arg("--account-for-embedding-in-pipeline-split");
  if (split.account_loss) arg("--account-for-loss-in-pipeline-split");
  const bool sequence_parallel = p.plan().sequence_parallel && p.plan().tp > 1;
  if (sequence_parallel) arg("--sequence-parallel");
  arg(fmt::format("--micro-batch-size {}", p.training().micro_batch));
  arg(fmt::format("--global-batch-size {}", p.training().global_batch));
  // The costed length (docs/export.md, "Training length"): steps x global batch x sequence = the trained tokens.
  arg(fmt::format("--train-iters {}", p.train_steps()));
  // training.warmup_tokens as whole steps (A: --lr-warmup-iters, default 0); the decay and the peak are the user's.
  if (p.extras_known()) arg(fmt::format("--lr-warmup-iters {}", p.warmup_steps()));
  // ShardMeter's selective recompute is core attention (Megatron's default module); plan.moe_recompute adds the
  // experts' activation (moe_act) or the whole routed part (moe) under selective granularity. Full recompute
  // recomputes everything and takes no modules.
  std::string moe_module;
  switch (p.plan().moe_recompute) {
    case model::MoeRecompute::none: break;
    case model::MoeRecompute::activation: moe_module = "moe_act"; break;
    case model::MoeRecompute::layer: moe_module = "moe"; break;
  }
  if (!p.moe()) moe_module.clear();
  const unsigned core_attn_only = 1u << static_cast<unsigned>(model::RecomputeModule::core_attn);
  switch (p.plan().recompute) {
    case model::Recompute::none:
    case model::Recompute::op_selective:   // op_selective: refused by check()
      if (!moe_module.empty()) {
        arg("--recompute-granularity selective");
        arg("--recompute-modules " + moe_module);
      }
      break;
    case model::Recompute::selective:
      arg("--recompute-granularity selective");
      if (p.recompute_modules() != 0 && p.recompute_modules() != core_attn_only)
        // plan.recompute_modules (docs/model.md §7.11) as written, the moe modules included (TC:1763-1832).
        arg("--recompute-modules " + p.recompute_modules_text());
      else if (!moe_module.empty())
        arg("--recompute-modules core_attn " + moe_module);
      break;
    case model::Recompute::full:
      arg("--recompute-granularity full");
      if (p.plan().recompute_layers > 0) {
        // plan.recompute_layers N per stage: the first N layers of each (virtual) stage checkpointed whole
        // (A:529-537; docs/model.md §7.5 counts N per physical stage, so each of the v chunks takes N / v).
        arg("--recompute-method block");
        arg(fmt::format("--recompute-num-layers {}", p.recomputed_stage_layers() / p.plan().interleave));
      } else {
        arg("--recompute-method uniform");
        arg("--recompute-num-layers 1");
      }
      break;
  }
  // Megatron-FSDP's strategies: optim_grads shards optimizer state and gradients (zero2), optim_grads_params also
  // the parameters (fsdp).
  const auto megatron_fsdp = [&](std::string_view strategy) {
    arg("--use-megatron-fsdp");
    arg("--use-distributed-optimizer");
    arg(fmt::format("--data-parallel-sharding-strategy {}", strategy));
    arg("--no-gradient-accumulation-fusion");
    arg("--ckpt-format fsdp_dtensor");
  };
  switch (p.plan().sharding) {
    case model::Sharding::none:
    case model::Sharding::hsdp: break;   // hsdp: refused by check()
    case model::Sharding::zero1: arg("--use-distributed-optimizer"); break;
    case model::Sharding::zero2: megatron_fsdp("optim_grads"); break;
    case model::Sharding::fsdp: megatron_fsdp("optim_grads_params"); break;
  }
  const bool grad_reduce = p.plan().overlap_grad_reduce && p.degrees().data_parallel > 1;
  if (grad_reduce) arg("--overlap-grad-reduce");
  if (grad_reduce && p.plan().overlap_param_gather && p.plan().sharding != model::Sharding::none) arg("--overlap-param-gather");
  if (p.plan().tp_comm_overlap && sequence_parallel) arg("--tp-comm-overlap");
  switch (p.training().precision) {
    case model::Precision::bf16: arg("--bf16"); break;
    case model::Precision::fp16: arg("--fp16"); break;
    case model::Precision::fp8:
      arg("--bf16");
      arg("--fp8-format hybrid");
      // training.fp8_params: the distributed optimizer gathers the weights in fp8, as costed (docs/model.md §2.2).
      if (p.training().fp8_params) arg("--fp8-param-gather");
      break;
  }
  // Host-memory offload (docs/model.md §7.15, §7.16; Megatron-LM core_v0.19.0 arguments.py): the layer count sets
  // cpu_offloading, activations only (cpu_offloading_weights defaults to False); the optimizer offload runs through
  // the precision-aware optimizer, its copies overlapped as costed.
  if (p.plan().activation_offload_layers > 0)
    arg(fmt::format("--cpu-offloading-num-layers {}", p.plan().activation_offload_layers));
  if (p.plan().optimizer_offload_fraction > 0) {
    arg("--optimizer-cpu-offload");
    arg(fmt::format("--optimizer-offload-fraction {}", p.plan().optimizer_offload_fraction));
    arg("--use-precision-aware-optimizer");
    arg("--overlap-cpu-optimizer-d2h-h2d");
  }
  t += ")\n";
  out.notes.push_back("megatron: add the data, tokenizer and optimizer arguments; the array holds the model, the "
                      "parallel layout and the batch");
  if (p.moe())
    out.notes.push_back("megatron: the router's load-balancing loss is not a plan key: add "
                        "--moe-router-load-balancing-type and --moe-aux-loss-coeff (default aux_loss with coefficient "
                        "0)" + std::string(m.moe.capacity_factor > 0 ? "; with the capacity factor it must be aux_loss, "
                                                                    "seq_aux_loss, global_aux_loss or none" : ""));
  return out;
}

}  // namespace shardmeter::results
