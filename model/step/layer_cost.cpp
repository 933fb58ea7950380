#include "model/step/layer_cost.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "model/kernels/attention_window.hpp"
#include "model/comm/collectives.hpp"
#include "model/comm/contention.hpp"
#include "model/parallel/fp8.hpp"
#include "model/kernels/kernel_time.hpp"
#include "model/kernels/mla.hpp"
#include "model/comm/nccl_algorithm.hpp"
#include "model/moe/moe_cost.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/kernels/overlap.hpp"
#include "model/parallel/recompute.hpp"
#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

namespace {

// FlashAttention backward re-computes QK^T and runs 5 matmuls against 2 in forward (Dao 2023, FA2 §4.1;
// docs/model.md §2.5).
constexpr double kFlashBackwardFactor = 2.5;
// Memory-bound kernels per block in forward (norms, bias/dropout/residual, activation, rotary, softmax).
// Assumed (a count, not a measurement): docs/model.md §2.4.
constexpr double kMemoryKernelsFwd = 8.0;
// Fraction of a TP collective hidden behind GEMMs when comm-GEMM overlap is on (Megatron-Core
// --tp-comm-overlap, userbuffers); the rest stays on the critical path. Assumed: docs/model.md §4.2.
constexpr double kTpOverlapHidden = 0.8;
// Megatron-Core's unfused RoPE (rope_utils.py _apply_rotary_pos_emb_bshd), which it runs whenever the YaRN
// concentration factor is not 1 (TE's fused RoPE takes no mscale), per element of Q and K: forward t*cos, -x2,
// cat, *sin, add, cat((t, t_pass)) read and write 12 elements in 6 kernels, plus 6 kernels on the [s, d] cos/sin
// tables; backward (autograd) g*sin, neg, the chunk's cat, g*cos, the accumulating add and the slice's zeros + copy
// 13 elements in 7 kernels. Q and K are two calls. docs/model.md §15.4.
constexpr double kUnfusedRopeElementPasses = 12.0 + 13.0;
constexpr double kUnfusedRopeKernelsPerCall = 12.0 + 7.0;

// Relative throughput of cuDNN's fused flash attention (what Transformer Engine runs on the megatron_te stack) against
// sequence length and head dim, forward + backward combined as 3.5 / (1/fwd + 2.5/bwd) and normalised to s = 4096,
// head_dim 128, where the family's fitted `attention` constant applies. From FlashAttention-3 (Shah et al. 2024,
// arXiv 2407.08608) Figs. 5-6, H100 SXM5 BF16, 16k tokens per batch, hidden 2048: cuDNN forward with the causal
// mask (head_dim 128: 315 410 484 518 529 539 TFLOP/s at s = 512 .. 16k; head_dim 64: 225 288 334 363 379 388) and
// backward (128: 305 408 465 499 518 516; 64: 266 348 395 417 432 433). docs/model.md §2.5.
constexpr std::array<double, 6> kCudnnFlashRel128 = {0.6104, 0.8102, 0.9326, 1.0, 1.0333, 1.0359};
constexpr std::array<double, 6> kCudnnFlashRel64 = {0.5014, 0.6513, 0.7444, 0.7932, 0.8237, 0.8311};
// The kernel's own rate at that reference, 504 TFLOP/s forward + backward (the same figures) of H100 SXM's 989 dense
// bf16 TFLOP/s: 0.5096 of peak. The fitted `attention` constants sit below it (H100 megatron_te 0.276) because they
// also carry per-token costs of the block; on megatron_te the kernel's part is charged at this rate and the rest per
// query token (docs/model.md §2.5), and a sliding window saves only the kernel's part (§2.8).
constexpr double kCudnnFlashReferenceEfficiency = 504.0 / 989.0;
// The key length at which the fitted constant is the whole of core attention's time: the shape table's reference.
constexpr double kAttentionReferenceKeys = 4096.0;

struct Shape {
  double tokens;   // rows of every GEMM on this GPU: b * s / cp (SP gathers the sequence back before GEMMs)
  double seq_q;    // query positions per GPU
  double seq_kv;   // key positions attended
  double t;        // tensor-parallel degree
};

Shape make_shape(const ModelSpec& m, const PlanSpec& plan, int micro_batch) {
  const double seq_q = static_cast<double>(m.seq_len) / plan.cp;
  return Shape{micro_batch * seq_q, seq_q, static_cast<double>(m.seq_len), static_cast<double>(plan.tp)};
}

// The forward GEMMs of one block. For a plain dense block (no MLA, no MoE) `column_gemm_s` receives the times of its
// two column-parallel GEMMs, QKV and MLP-up (the shapes the asynchronous backward TP overlaps, §4.4).
double dense_gemms_fwd_s(const ModelSpec& m, const GpuSpec& gpu, Precision precision, const Shape& x,
                         std::array<double, 2>& column_gemm_s) {
  const double h = m.hidden, f = m.ffn_hidden;
  const double q_out = static_cast<double>(m.heads) * m.head_dim;
  const double kv_out = static_cast<double>(m.kv_heads) * m.head_dim;
  const double up_width = (m.ffn_type == FfnType::swiglu ? 2.0 : 1.0) * f;
  // Column-parallel QKV and MLP-up split their outputs by t; row-parallel projections split their inputs.
  if (!uses_mla(m) && !is_moe(m)) {
    column_gemm_s = {gemm_time_s(x.tokens, (q_out + 2.0 * kv_out) / x.t, h, gpu, precision),
                     gemm_time_s(x.tokens, up_width / x.t, h, gpu, precision)};
    return column_gemm_s[0] + gemm_time_s(x.tokens, h, q_out / x.t, gpu, precision) + column_gemm_s[1] +
           gemm_time_s(x.tokens, h, f / x.t, gpu, precision);
  }
  // MoE / MLA hook (docs/model.md §15.2, §15.4): MLA's latent projections as one GEMM of the same size over h;
  // the dense MLP only in the dense blocks (the MoE blocks' experts are moe_block_cost's), averaged per block.
  const double attention = uses_mla(m) ? gemm_time_s(x.tokens, attention_matmul_params(m) / h / x.t, h, gpu, precision)
                                       : gemm_time_s(x.tokens, (q_out + 2.0 * kv_out) / x.t, h, gpu, precision) +
                                             gemm_time_s(x.tokens, h, q_out / x.t, gpu, precision);
  const double dense_share = static_cast<double>(dense_layer_count(m)) / m.layers;
  const double mlp = dense_share > 0 ? gemm_time_s(x.tokens, up_width / x.t, h, gpu, precision) +
                                           gemm_time_s(x.tokens, h, f / x.t, gpu, precision)
                                     : 0.0;
  return attention + dense_share * mlp;
}

// The forward matmuls torchtitan's per-op policy recomputes: the even-numbered of each block (docs/model.md §7.5).
// Dense MHA/GQA: wk (h -> g*d), wo (a*d -> h) and the MLP's second matmul (h x f). MLA: half of its projections.
// MoE blocks recompute their routed part whole; that share is added by layer_cost.
double op_selective_gemms_fwd_s(const ModelSpec& m, const GpuSpec& gpu, Precision precision, const Shape& x) {
  const double h = m.hidden, f = m.ffn_hidden;
  const double q_out = static_cast<double>(m.heads) * m.head_dim;
  const double kv_out = static_cast<double>(m.kv_heads) * m.head_dim;
  const double attention =
      uses_mla(m) ? 0.5 * gemm_time_s(x.tokens, attention_matmul_params(m) / h / x.t, h, gpu, precision)
                  : gemm_time_s(x.tokens, kv_out / x.t, h, gpu, precision) +
                        gemm_time_s(x.tokens, h, q_out / x.t, gpu, precision);
  const double dense_share = is_moe(m) ? static_cast<double>(dense_layer_count(m)) / m.layers : 1.0;
  return attention + dense_share * gemm_time_s(x.tokens, f / x.t, h, gpu, precision);
}

// The forward GEMMs recompute_modules re-runs beyond core attention, per block (docs/model.md §7.11): mlp the dense
// MLP's two matmuls (in the dense share of the blocks), mla_up_proj MLA's query and key/value up-projections
// (wq_b r_q -> a(d + d_r), or wq h -> a(d + d_r) without query compression; wkv_b r_kv -> a(d + d_v)),
// shared_experts the shared experts' two matmuls (in the MoE share). moe_act and moe are moe_block_cost's.
double selective_modules_gemms_fwd_s(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan,
                                     Precision precision, const Shape& x) {
  const double h = m.hidden;
  const double gated = m.ffn_type == FfnType::swiglu ? 2.0 : 1.0;
  double s = 0;
  if (recomputes_module(plan, RecomputeModule::mlp)) {
    const double dense_share = is_moe(m) ? static_cast<double>(dense_layer_count(m)) / m.layers : 1.0;
    if (dense_share > 0)
      s += dense_share * (gemm_time_s(x.tokens, gated * m.ffn_hidden / x.t, h, gpu, precision) +
                          gemm_time_s(x.tokens, h, m.ffn_hidden / x.t, gpu, precision));
  }
  if (uses_mla(m) && recomputes_module(plan, RecomputeModule::mla_up_proj)) {
    const double q_in = m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : h;
    s += gemm_time_s(x.tokens, m.heads * qk_head_dim(m) / x.t, q_in, gpu, precision) +
         gemm_time_s(x.tokens, m.heads * (m.head_dim + v_head_dim(m)) / x.t, m.mla.kv_lora_rank, gpu, precision);
  }
  if (is_moe(m) && m.moe.shared_experts > 0 && recomputes_module(plan, RecomputeModule::shared_experts)) {
    const double moe_share = static_cast<double>(moe_layer_count(m)) / m.layers;
    const double width = static_cast<double>(m.moe.shared_experts) * m.moe.shared_expert_ffn_hidden;
    s += moe_share * (gemm_time_s(x.tokens, gated * width / x.t, h, gpu, precision) +
                      gemm_time_s(x.tokens, h, width / x.t, gpu, precision));
  }
  return s;
}

// The memory-bound forward kernels recompute_modules re-runs (§7.11): layernorm the two norms (read the input, write
// the output: 4 bytes per element of width h, replicated unless SP); mlp the dense MLP's activation (SwiGLU reads 2f
// and writes f, GELU reads and writes f, split by TP).
double selective_modules_memory_fwd_s(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, int micro_batch) {
  const double tokens = micro_batch * static_cast<double>(m.seq_len) / plan.cp;
  double bytes = 0, kernels = 0;
  if (recomputes_module(plan, RecomputeModule::layernorm)) {
    bytes += 2.0 * 2.0 * kActivationBytes * tokens * m.hidden / (plan.sequence_parallel ? plan.tp : 1.0);
    kernels += 2.0;
  }
  if (recomputes_module(plan, RecomputeModule::mlp)) {
    const double dense_share = is_moe(m) ? static_cast<double>(dense_layer_count(m)) / m.layers : 1.0;
    bytes += dense_share * (m.ffn_type == FfnType::swiglu ? 3.0 : 2.0) * kActivationBytes * tokens * m.ffn_hidden /
             plan.tp;
    kernels += dense_share;
  }
  return kernels > 0 ? memory_bound_time_s(bytes, kernels, gpu) : 0.0;
}

// Core attention forward on one GPU. Flash: causal blocks skipped, one fused kernel. Standard (Megatron
// 2021-22): two batched GEMMs over every s^2 entry, plus softmax/dropout traffic over the score matrix.
PassCost attention_fwd(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, int micro_batch,
                       const Shape& x) {
  PassCost c;
  const double heads_local = m.heads / x.t;
  // MLA hook: QK^T over d + d_rope, AV over d_v (their mean for the one-dimension formulas below).
  const double head_dim = uses_mla(m) ? 0.5 * (qk_head_dim(m) + v_head_dim(m)) : m.head_dim;
  const double full_flops = 4.0 * micro_batch * heads_local * x.seq_q * x.seq_kv * head_dim;
  if (plan.attention == AttentionKernel::flash) {
    const bool te = plan.stack == Stack::megatron_te;
    const double shape = te ? cudnn_flash_shape_factor(x.seq_q, head_dim) : 1.0;
    // The kernel's causal time: at cuDNN's measured rate on megatron_te, at the fitted constant elsewhere.
    const double kernel_efficiency =
        te ? std::max(gpu.attention_efficiency, kCudnnFlashReferenceEfficiency) : gpu.attention_efficiency;
    const double kernel_causal_s = 0.5 * full_flops / (gpu.peak_flops_per_s * kernel_efficiency * shape);
    double causal_s = kernel_causal_s;
    if (te) {
      // docs/model.md §2.5: what the fitted constant carries beyond the kernel, as a cost per query token: the
      // difference of the two rates on the FLOPs the query tokens would have at the reference key length. At that
      // length the sum is the fitted constant's time; at longer ones the per-token part does not grow with the keys.
      const double ref_shape = cudnn_flash_shape_factor(kAttentionReferenceKeys, head_dim);
      const double ref_causal_flops = 0.5 * full_flops * kAttentionReferenceKeys / x.seq_kv;
      causal_s += ref_causal_flops * (1.0 / (gpu.peak_flops_per_s * gpu.attention_efficiency * ref_shape) -
                                      1.0 / (gpu.peak_flops_per_s * kernel_efficiency * ref_shape));
    }
    c.attention_s = causal_s + gpu.kernel_overhead_s;
    // Sliding windows: the kernel skips the key tiles outside each query tile's window, which saves the kernel's
    // time on them at its own rate, not the per-token costs the fitted constant also carries (docs/model.md §2.8).
    if (const double share = attention_time_share(m); share < 1.0) {
      c.attention_s -= (1.0 - share) * kernel_causal_s;
    }
    return c;
  }
  const double batch = micro_batch * heads_local;
  c.attention_s = batch * (gemm_time_s(x.seq_q, x.seq_kv, head_dim, gpu, Precision::bf16) +
                           gemm_time_s(x.seq_q, head_dim, x.seq_kv, gpu, Precision::bf16)) -
                  (2.0 * batch - 2.0) * gpu.kernel_overhead_s;  // one launch per batched GEMM, not per head
  // Scaled-masked softmax reads and writes the scores; dropout reads them, writes output and a 1-byte mask.
  const double scores = batch * x.seq_q * x.seq_kv;
  const double bytes = scores * kActivationBytes * (2.0 + (m.dropout ? 2.5 : 0.0));
  c.memory_s = memory_bound_time_s(bytes, m.dropout ? 2.0 : 1.0, gpu);
  return c;
}

// YaRN RoPE with a concentration factor 0.1·ln(factor) + 1 != 1 runs unfused on the Megatron stacks
// (rope_utils.py apply_rotary_pos_emb: "mscale=... is not supported by TE's fused RoPE"; docs/model.md §15.4).
bool unfused_yarn_rope(const ModelSpec& m, const PlanSpec& plan) {
  return m.position_embedding == PositionEmbedding::rope && m.yarn_factor > 1.0 && is_megatron_core(plan.stack);
}

// Activation bytes moved by memory-bound kernels in one block's forward, per GPU.
double layer_memory_traffic_fwd_bytes(const ModelSpec& m, const PlanSpec& plan, int micro_batch) {
  const double tokens = micro_batch * static_cast<double>(m.seq_len) / plan.cp;
  const double x_h = tokens * m.hidden;  // one activation tensor of width h
  const double d = m.dropout ? 1.0 : 0.0;
  // Replicated across TP ranks unless sequence-parallel: two norms (read + write: 4), two bias-dropout-residual
  // adds (read 2, write 1, mask 1/2 each: 6 + d).
  const double replicated = 4.0 + 6.0 + d;
  // Split by TP: the MLP activation (GELU reads/writes f; SwiGLU reads 2f, writes f) and rotary on Q and K.
  // MoE hook: the dense MLP's activation only in the dense blocks; the experts' is moe_block_cost's (§15.4).
  const double dense_share = is_moe(m) ? static_cast<double>(dense_layer_count(m)) / m.layers : 1.0;
  const double act =
      dense_share * (m.ffn_type == FfnType::swiglu ? 3.0 : 2.0) * m.ffn_hidden / static_cast<double>(m.hidden);
  // Fused RoPE reads and writes Q and K once; the unfused YaRN path's exact forward + backward passes enter the
  // forward at a third (the backward is charged at twice the forward, §2.4).
  const double rope_passes = unfused_yarn_rope(m, plan) ? kUnfusedRopeElementPasses / 3.0 : 2.0;
  const double rope = m.position_embedding == PositionEmbedding::rope
                          ? rope_passes * (m.heads + m.kv_heads) * static_cast<double>(m.head_dim) / m.hidden
                          : 0.0;
  const double replicated_share = plan.sequence_parallel ? 1.0 / plan.tp : 1.0;
  return kActivationBytes * x_h * (replicated * replicated_share + (act + rope) / plan.tp);
}

// One TP collective of a block's activation (all-reduce, or with SP an all-gather + reduce-scatter pair). With fp8
// the all-gather half moves 1-byte elements (docs/model.md §2.2).
// b*s*h activation elements per TP collective [Shoeybi et al. 2019 §3; Korthikanti et al. 2022 §4.2.2].
double tp_collective_bytes(const ModelSpec& m, const PlanSpec& plan, int micro_batch, double bytes_per_element) {
  return bytes_per_element * micro_batch * static_cast<double>(m.seq_len) / plan.cp * m.hidden;
}

CollectiveCost tp_collective(const ModelSpec& m, const PlanSpec& plan, int micro_batch, const IslandLayout& l,
                             double bytes_per_element) {
  if (plan.tp <= 1) return {};
  // SP replaces each all-reduce by a reduce-scatter + all-gather of the same total volume. NCCL's algorithm choice
  // (docs/model.md §3.5) is reported with the layer's cost.
  return nccl_collective(NetworkOp::all_reduce, tp_collective_bytes(m, plan, micro_batch, bytes_per_element), l.tp_group,
                         l.links);
}

// Exposed backward TP time of one dense block when each column-parallel layer (QKV, MLP up) runs its backward
// collective asynchronously beside its own GEMMs (docs/model.md §4.4; NVIDIA/Megatron-LM@2755bcb8
// megatron/mpu/layers.py LinearWithGradAccumulationAndAsyncCommunication.backward). Without SP: the input-gradient
// all-reduce beside the weight-gradient GEMM; the row-parallel layers' backward has no collective. With SP: the
// row-parallel layers' output-gradient all-gathers stay synchronous, each column-parallel layer re-gathers its saved
// input shard beside its input-gradient GEMM and reduce-scatters the input gradient beside its weight-gradient GEMM.
// Each dgrad/wgrad GEMM has the shape of the layer's forward GEMM (`column_gemm_s`, from dense_gemms_fwd_s). The
// hidden part slows the GEMM it runs beside (contention of the TP group's NCCL ring, §6.6).
double dgrad_overlapped_tp_bwd_s(const ModelSpec& m, const PlanSpec& plan,
                                 const std::array<double, 2>& column_gemm_s, const IslandLayout& l, double tp_one,
                                 int micro_batch, double slowdown) {
  const double h = m.hidden;
  double exposed = 0;
  if (!plan.sequence_parallel) {
    for (const double wgrad : column_gemm_s) exposed += exposed_after_overlap(tp_one, wgrad, slowdown);
    return exposed;
  }
  // The pair's reduce-scatter half moves the 16-bit gradient; the all-gather half is the rest (fp8: 1-byte, §2.2).
  const double rs = hierarchical_reduce_scatter_s(
      kActivationBytes * micro_batch * static_cast<double>(m.seq_len) / plan.cp * h, l.tp_group, l.links);
  const double ag = tp_one - rs;
  exposed = 2.0 * ag;  // the row-parallel layers' backward all-gathers
  for (const double gemm : column_gemm_s)
    exposed += exposed_after_overlap(ag, gemm, slowdown) + exposed_after_overlap(rs, gemm, slowdown);
  return exposed;
}

}  // namespace

double cudnn_flash_shape_factor(double seq_len, double head_dim) noexcept {
  // Piecewise linear in log2(s) between the measured 512 .. 16k, in log2(head_dim) between 64 and 128; held flat
  // outside the measured range (docs/model.md §2.5).
  const double s = std::max(seq_len, 1.0);
  const double d = std::max(head_dim, 1.0);
  constexpr std::uint64_t kMantissa = (std::uint64_t{1} << 52) - 1;
  const auto s_bits = std::bit_cast<std::uint64_t>(s);
  const auto d_bits = std::bit_cast<std::uint64_t>(d);
  if (((s_bits | d_bits) & kMantissa) == 0) {
    // Both powers of two (nearly always): log2 is the exponent and the weights below are 0 or 1, so the answer is a
    // table entry, the same value the interpolation gives (r[i] + 1 * (r[i+1] - r[i]) is exactly r[i+1], the
    // entries being within a factor 2 of each other), without two libm calls in the evaluation path.
    const int i = std::clamp(static_cast<int>(s_bits >> 52) - 1023 - 9, 0, 5);
    return static_cast<int>(d_bits >> 52) - 1023 >= 7 ? kCudnnFlashRel128[static_cast<std::size_t>(i)]
                                                       : kCudnnFlashRel64[static_cast<std::size_t>(i)];
  }
  const double u = std::clamp(std::log2(s) - 9.0, 0.0, 5.0);  // 0 at 512, 5 at 16k
  const auto i = static_cast<std::size_t>(std::min(u, 4.0));
  const double w = u - static_cast<double>(i);
  const double r128 = kCudnnFlashRel128[i] + w * (kCudnnFlashRel128[i + 1] - kCudnnFlashRel128[i]);
  const double r64 = kCudnnFlashRel64[i] + w * (kCudnnFlashRel64[i + 1] - kCudnnFlashRel64[i]);
  const double v = std::clamp(std::log2(d) - 6.0, 0.0, 1.0);  // 0 at 64, 1 at 128
  return r64 + v * (r128 - r64);
}

namespace {

// One TP collective of a block (after attention or after the MLP), its contention and its overlap.
struct TpCollective {
  double one_s;        // one collective, after what tp_comm_overlap hides
  double slowdown;     // contention of its bytes on the GEMMs it runs beside (§6.6)
  CollectiveAlgorithm algorithm;
};

TpCollective tp_collective_cost(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, Precision precision,
                                int micro_batch, const IslandLayout& layout) noexcept {
  const Fp8Use fp8 = fp8_use(precision, plan.stack);
  const double tp_bytes_per_element = tp_all_gather_bytes_per_element(fp8, plan.sequence_parallel);
  const CollectiveCost tp_cost = tp_collective(m, plan, micro_batch, layout, tp_bytes_per_element);
  double tp_one = tp_cost.time_s;
  // Bytes through each GPU per TP collective: an all-reduce's (or RS + AG's) twice the payload, at its average rate
  // (§6.6).
  const double tp_bytes_through = 2.0 * tp_collective_bytes(m, plan, micro_batch, tp_bytes_per_element);
  const double tp_slowdown = collective_contention(gpu, layout.tp_group, tp_bytes_through, tp_one);
  // Hidden part still slows the GEMMs it overlaps (see model/kernels/overlap.hpp).
  if (plan.tp_comm_overlap && tp_one > 0)
    tp_one *= (1.0 - kTpOverlapHidden) +
              contention_slowdown(gpu, kTpOverlapSms, tp_bytes_through / tp_one) * kTpOverlapHidden;
  return TpCollective{tp_one, tp_slowdown, tp_cost.algorithm};
}

// Context parallelism's exposed KV traffic, forward and backward.
struct CpExposed {
  double fwd_s = 0, bwd_s = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::none;
};

CpExposed cp_exposed(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, int micro_batch,
                     const IslandLayout& layout, double attention_fwd_s, double attention_bwd_s) noexcept {
  // Every rank needs the K and V of the whole sequence (its TP shard of heads). Ring attention passes KV blocks
  // around the CP group while computing (Megatron-Core CP; Liu et al. 2023, Ring Attention): forward all-gathers KV,
  // backward gathers KV again and reduce-scatters dKV; overlapped with the attention kernels, only the part that
  // does not fit under them is exposed. Counted with TP communication.
  CpExposed e;
  if (plan.cp <= 1) return e;
  const double kv_bytes = kActivationBytes * 2.0 * micro_batch * static_cast<double>(m.seq_len) *
                          (static_cast<double>(m.kv_heads) * m.head_dim / plan.tp);
  const CollectiveCost cp_cost = nccl_collective(NetworkOp::all_gather, kv_bytes, layout.cp_group, layout.links);
  const double gather = cp_cost.time_s;
  e.algorithm = cp_cost.algorithm;
  const double slowdown = collective_contention(gpu, layout.cp_group, kv_bytes, gather);
  e.fwd_s = exposed_after_overlap(gather, attention_fwd_s, slowdown);
  e.bwd_s = exposed_after_overlap(2.0 * gather, attention_bwd_s, slowdown);
  return e;
}

// What plan.recompute runs again in the backward.
PassCost recompute_cost(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, Precision precision,
                        int micro_batch, const Shape& x, const PassCost& attn, const PassCost& forward,
                        double moe_gemm_fwd, double mem_fwd, double tp_one) noexcept {
  PassCost r;
  switch (plan.recompute) {
    case Recompute::none:
      break;
    case Recompute::selective:
      // core_attn: re-run core attention (Korthikanti et al. 2022 §5). FlashAttention already recomputes inside
      // its backward, so it adds nothing on top of it. The other modules of plan.recompute_modules add their
      // forward again (docs/model.md §7.11).
      if (plan.attention == AttentionKernel::standard && recomputes_module(plan, RecomputeModule::core_attn))
        r = PassCost{0.0, attn.attention_s, attn.memory_s, 0.0};
      r.gemm_s += selective_modules_gemms_fwd_s(m, gpu, plan, precision, x);
      r.memory_s += selective_modules_memory_fwd_s(m, gpu, plan, micro_batch);
      break;
    case Recompute::full:
      // Re-run the whole block forward, including its 2 TP collectives (Shoeybi/Narayanan: 6 per block).
      r = forward;
      break;
    case Recompute::op_selective: {
      // torchtitan's per-op policy: every second matmul (wk, wo, and w3 or the second MLP matmul) and every
      // memory-bound kernel run again; attention and the other matmuls are saved. The all-gathers (SP) or
      // all-reduces (TP without SP) feeding the recomputed matmuls run again; SP's reduce-scatters are saved.
      // MLA: half of its projection time; MoE: the routed part (grouped GEMMs, router, permutation) whole
      // (docs/model.md §7.5).
      // Standard (non-flash) attention keeps no score matrix here, so core attention runs again too (assumed).
      const bool standard = plan.attention == AttentionKernel::standard;
      r = PassCost{op_selective_gemms_fwd_s(m, gpu, precision, x) + moe_gemm_fwd,
                   standard ? attn.attention_s : 0.0, mem_fwd + (standard ? attn.memory_s : 0.0),
                   (plan.sequence_parallel ? 1.0 : 2.0) * tp_one};
      break;
    }
  }
  return r;
}

}  // namespace

LayerCost layer_cost(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, Precision precision,
                     int micro_batch, const IslandLayout& layout) noexcept {
  const Shape x = make_shape(m, plan, micro_batch);
  LayerCost c;

  std::array<double, 2> column_gemm_s{};   // QKV and MLP-up, set for plain dense blocks
  double gemm_fwd = dense_gemms_fwd_s(m, gpu, precision, x, column_gemm_s);
  const PassCost attn = attention_fwd(m, gpu, plan, micro_batch, x);
  // Unfused YaRN RoPE: its Q and K calls' launches, forward and backward, at a third, less the one rotary launch
  // kMemoryKernelsFwd counts.
  const double rope_kernels = unfused_yarn_rope(m, plan) ? (2.0 * kUnfusedRopeKernelsPerCall - 3.0) / 3.0 : 0.0;
  double mem_fwd = memory_bound_time_s(layer_memory_traffic_fwd_bytes(m, plan, micro_batch),
                                       kMemoryKernelsFwd + rope_kernels, gpu);
  double moe_gemm_fwd = 0;  // the routed part's GEMMs, averaged per block
  double tp_collectives = 2.0;  // TP collectives per block and pass: after attention, after the MLP
  if (is_moe(m)) {
    // MoE hook: the MoE blocks' experts, router and permutation, averaged per block (docs/model.md §15.4); their
    // all-to-alls are counted apart (TimeBreakdown::ep_comm_s, model/step/island_step.cpp).
    const MoeBlockCost moe = moe_block_cost(m, gpu, plan, precision, micro_batch, layout);
    const double moe_share = static_cast<double>(moe_layer_count(m)) / m.layers;
    moe_gemm_fwd = moe_share * moe.gemm_fwd_s;
    gemm_fwd += moe_gemm_fwd;
    mem_fwd += moe_share * moe.memory_fwd_s;
    c.ep_all_to_all_s = moe_share * moe.all_to_all_s;
    c.ep_all_to_all_bytes = moe_share * moe.all_to_all_bytes;
    c.ep_experts_fwd_s = moe_share * moe.routed_gemm_fwd_s;
    c.ep_experts_memory_fwd_s = moe_share * moe.experts_memory_fwd_s;
    tp_collectives = 2.0 - moe_share * moe_block_tp_collectives_saved(m);
  }
  const TpCollective tp = tp_collective_cost(m, gpu, plan, precision, micro_batch, layout);
  const double tp_one = tp.one_s;
  c.tp_algorithm = tp.algorithm;

  const double attn_bwd = plan.attention == AttentionKernel::flash ? kFlashBackwardFactor * attn.attention_s
                                                                   : 2.0 * attn.attention_s;
  const CpExposed cp = cp_exposed(m, gpu, plan, micro_batch, layout, attn.attention_s, attn_bwd);
  const double cp_fwd = cp.fwd_s, cp_bwd = cp.bwd_s;
  if (plan.cp > 1) c.cp_algorithm = cp.algorithm;

  // Forward: 2 TP collectives per block (after attention, after MLP) [Shoeybi et al. 2019 §3].
  c.forward = PassCost{gemm_fwd, attn.attention_s, mem_fwd + attn.memory_s, tp_collectives * tp_one + cp_fwd};
  // Backward: input and weight gradients (2x forward GEMMs), 2 TP collectives; memory-bound work ~2x forward.
  // Megatron's asynchronous column-parallel backward hides them partly behind the dgrad/wgrad GEMMs (§4.4; dense
  // blocks, and not on top of userbuffers overlap).
  const bool dgrad_overlap = plan.tp_dgrad_overlap && !plan.tp_comm_overlap && plan.tp > 1 && !uses_mla(m) && !is_moe(m);
  const double tp_bwd =
      dgrad_overlap ? dgrad_overlapped_tp_bwd_s(m, plan, column_gemm_s, layout, tp_one, micro_batch, tp.slowdown) : tp_collectives * tp_one;
  c.backward = PassCost{2.0 * gemm_fwd, attn_bwd, 2.0 * (mem_fwd + attn.memory_s), tp_bwd + cp_bwd};

  c.recompute = recompute_cost(m, gpu, plan, precision, micro_batch, x, attn, c.forward, moe_gemm_fwd, mem_fwd, tp_one);
  return c;
}

PassCost logits_cost(const ModelSpec& m, const GpuSpec& gpu, Precision precision, int micro_batch,
                     const IslandLayout& layout) noexcept {
  const double tokens = micro_batch * static_cast<double>(m.seq_len) / layout.cp;
  const double vocab_local = static_cast<double>(m.vocab) / layout.tp;
  PassCost c;
  // Output projection (vocab-parallel): forward + 2x backward.
  c.gemm_s = 3.0 * gemm_time_s(tokens, vocab_local, m.hidden, gpu, precision);
  // Cross-entropy in fp32 over the local logits: read/write logits ~4 times across forward and backward
  // (assumed, docs/model.md §2.6).
  c.memory_s = memory_bound_time_s(4.0 * 4.0 * tokens * vocab_local, 6.0, gpu);
  return c;
}

}  // namespace shardmeter::model
