#include "model/moe/moe_cost.hpp"

#include <algorithm>

#include "model/comm/collectives.hpp"
#include "model/comm/contention.hpp"
#include "model/kernels/kernel_time.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/kernels/overlap.hpp"
#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

namespace {

// NCCL all-to-all inside an NVLink domain reaches ~370 GB/s bus bandwidth on H100 where all-reduce reaches ~480
// (S. Jeaugey, nccl-tests issue 212): all-to-all runs at 0.77 of the collective bandwidth the links deliver.
// Across nodes all-to-all cannot aggregate NICs and runs at one NIC's rate (nccl-tests issue 267), which is the
// per-GPU scale-out share already. docs/model.md §15.4.
constexpr double kAllToAllScaleupEfficiency = 0.77;
constexpr double kAllToAllScaleoutEfficiency = 1.0;
// Memory-bound kernels of an MoE block's forward: router softmax/sigmoid, top-k, permute, unpermute (assumed count,
// docs/model.md §15.4).
constexpr double kMoeMemoryKernelsFwd = 4.0;
// SMs DeepEP's dispatch and combine kernels occupy (Megatron-Core moe_deepep_num_sms default; DeepSeek-V3 §3.2.2).
constexpr double kDeepEpSms = 20.0;

// Tokens one GPU feeds to the MoE layer per micro-batch: b*s/cp, split by TP (sequence-parallel layout).
double tokens_in(const ModelSpec& m, const PlanSpec& plan, int micro_batch) {
  return micro_batch * static_cast<double>(m.seq_len) / plan.cp / plan.tp;
}

}  // namespace

double deepep_remote_node_copies(int experts, int top_k, int nodes) noexcept {
  // A token's k experts are k distinct experts drawn uniformly (force-balanced routing); a given other node holds
  // E/N of them and is missed with probability C(E - E/N, k) / C(E, k) = prod_{i<k} (E - E/N - i) / (E - i).
  if (nodes <= 1) return 0.0;
  const double e = experts, per_node = e / nodes;
  double miss = 1.0;
  for (int i = 0; i < top_k; ++i) miss *= std::max(0.0, (e - per_node - i) / (e - i));
  return (nodes - 1.0) * (1.0 - miss);
}

double dispatch_bytes(const ModelSpec& m, const PlanSpec& plan, int micro_batch) noexcept {
  // 16-bit under fp8 training too: Megatron-Core's alltoall, DeepEP and HybridEP dispatchers send the bf16 hidden
  // states and Transformer Engine quantizes them in the experts' GroupedLinear (Megatron-LM 2edffad; HybridEP:
  // "we do not support fp8 dispatch"); fp8 on the wire is DeepSeek-V3's own framework (§3.3) and an opt-in of a
  // later Megatron-Core dispatcher (docs/model.md §15.4).
  const double remote = (plan.ep - 1.0) / plan.ep;
  return tokens_in(m, plan, micro_batch) * m.moe.top_k * m.hidden * kActivationBytes * remote;
}

namespace {

// What the three parts of an MoE block's cost share: the GPU's tokens and the busiest rank's expert grid.
struct ExpertGrid {
  double t_in;           // tokens in per micro-batch (tokens_in)
  double gated;          // 2 for SwiGLU's gate and up projections, 1 otherwise
  double local_experts;  // E / EP
  double copies;         // the busiest rank's routed token copies
  double f_local;        // expert width per ETP rank
};

ExpertGrid expert_grid(const ModelSpec& m, const PlanSpec& plan, int micro_batch) noexcept {
  // The expert grid (ETP x EP x EDP) processes b*s*k*ETP/(TP*CP) token copies per GPU on average; the busiest rank
  // paces the layer.
  return ExpertGrid{tokens_in(m, plan, micro_batch), m.ffn_type == FfnType::swiglu ? 2.0 : 1.0,
                    static_cast<double>(m.moe.experts) / plan.ep, busiest_rank_routed_copies(m, plan, micro_batch),
                    static_cast<double>(m.moe.expert_ffn_hidden) / plan.etp};
}

// GEMMs of the block's forward: routed experts, shared experts, router.
void moe_gemms(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, Precision precision, const ExpertGrid& x,
               MoeBlockCost& c) noexcept {
  const double h = m.hidden;
  // Routed experts: the busiest rank's E/EP local experts run as one grouped GEMM of E/EP small GEMMs, each of
  // tokens/expert rows, at the tile efficiency of that row count (one launch).
  const double rows = x.copies / x.local_experts;
  const double one_expert = gemm_time_s(rows, x.gated * x.f_local, h, gpu, precision) +
                            gemm_time_s(rows, h, x.f_local, gpu, precision) - 2.0 * gpu.kernel_overhead_s;
  c.routed_gemm_fwd_s = x.local_experts * one_expert + 2.0 * gpu.kernel_overhead_s;
  c.gemm_fwd_s = c.routed_gemm_fwd_s;
  // Shared experts: one dense MLP of width S*f_s over the block's tokens, split like the dense MLP (TP).
  if (m.moe.shared_experts > 0) {
    const double tokens = x.t_in * plan.tp;
    const double width = static_cast<double>(m.moe.shared_experts) * m.moe.shared_expert_ffn_hidden / plan.tp;
    c.gemm_fwd_s += gemm_time_s(tokens, x.gated * width, h, gpu, precision) + gemm_time_s(tokens, h, width, gpu, precision);
  }
  // Router: an h x E GEMM over the GPU's tokens, never in fp8 (Megatron's TopKRouter is a torch linear in the
  // router dtype, fp32 logits; counted at the 16-bit rate, docs/model.md §15.4).
  const Precision router_precision = precision == Precision::fp8 ? Precision::bf16 : precision;
  c.gemm_fwd_s += gemm_time_s(x.t_in, m.moe.experts, h, gpu, router_precision);
}

// Memory-bound work beyond the fused kernels, counted over forward, backward and recompute.
struct ExtraWork {
  double bytes = 0, kernels = 0;
};

ExtraWork moe_extra_work(const ModelSpec& m, const PlanSpec& plan, const ExpertGrid& x, double routed_activation) noexcept {
  const bool megatron_core = is_megatron_core(plan.stack);
  ExtraWork e;
  // plan.moe_recompute: activation (Megatron moe_act, CheckpointWithoutOutput) re-runs the fused activation before
  // the backward: it reads and writes it once more.
  const bool act_recomputed = plan.moe_recompute == MoeRecompute::activation && plan.recompute != Recompute::full;
  if (act_recomputed) {
    e.bytes += routed_activation;
    e.kernels += 1.0;
  }
  // Megatron-Core's TEGroupedMLP (core_r0.17, the Megatron-LM commit Megatron-Bridge v0.4.2 pins) runs two gpt-oss
  // features outside the fused kernels (docs/model.md §15.4):
  if (megatron_core && m.moe.activation_clamp > 0 && m.ffn_type == FfnType::swiglu) {
    // the clamped gate: chunk, two clamps and a cat before the fused quick-GeGLU read 2f and write 2f twice
    // (8f elements) per routed copy; their backward reads the gradient and the saved input and writes the gradient
    // (6f); moe_act recomputes the forward part (8f). Kernels: 3 forward, 2 backward, 3 recompute.
    e.bytes += kActivationBytes * x.copies * x.f_local * (8.0 + 6.0 + (act_recomputed ? 8.0 : 0.0));
    e.kernels += 5.0 + (act_recomputed ? 3.0 : 0.0);
  }
  if (megatron_core && m.bias) {
    // the down projection's bias, added per local expert by a Python loop (_apply_bias: split, bias x probability,
    // add, cat): forward 6h elements per routed copy (write b*p, read t and b*p, write, cat read and write),
    // backward 6h (two products with the gradient and two reductions, for the bias and the probability
    // gradients). Kernels: 2 per local expert and the cat forward, 4 per local expert backward.
    e.bytes += kActivationBytes * x.copies * m.hidden * (6.0 + 6.0);
    e.kernels += 6.0 * x.local_experts + 1.0;
  }
  return e;
}

// Memory-bound kernels of the block's forward, and the part of them between dispatch and combine.
void moe_memory_kernels(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, const ExpertGrid& x,
                        MoeBlockCost& c) noexcept {
  const double h = m.hidden, k = m.moe.top_k;
  // Permute and unpermute read and write every routed copy; router scores in fp32 over T x E.
  const double permute = 2.0 * 2.0 * x.t_in * k * h * kActivationBytes;
  // Megatron-Core's alltoall dispatcher permutes twice each way: by destination rank before the all-to-all, then the
  // received tokens by local expert (sort_chunks_by_idxs, "Permutation 2", whenever num_local_experts > 1) and back
  // before the combine. Each of the two sorts reads and writes the busiest rank's routed copies (docs/model.md §15.4).
  // DeepEP's dispatch reads the unpermuted tokens and permutes once, on the receiving side: nothing to add.
  double sort_bytes = 0, sort_kernels = 0;
  if (is_megatron_core(plan.stack) && plan.ep_dispatcher == EpDispatcher::alltoall && x.local_experts > 1.0) {
    sort_bytes = 2.0 * 2.0 * x.copies * h * kActivationBytes;
    sort_kernels = 2.0;
  }
  const double scores = 3.0 * 4.0 * x.t_in * m.moe.experts;
  // The experts' activation (SwiGLU reads 2f and writes f, GELU reads and writes f; §2.4) over the busiest rank's
  // routed copies at the expert width per ETP rank, and the shared experts' over the block's tokens split by TP.
  // Megatron fuses bias, gate and the routing-probability weighting into one kernel per block (weighted_bias_swiglu /
  // weighted_bias_quick_geglu in TEGroupedMLP), counted within the kMoeMemoryKernelsFwd launches.
  const double per_width = x.gated + 1.0;
  const double routed_activation = kActivationBytes * per_width * x.copies * x.f_local;
  const double shared_activation =
      kActivationBytes * per_width * x.t_in * static_cast<double>(m.moe.shared_experts) * m.moe.shared_expert_ffn_hidden;
  // The model charges a block's backward memory-bound work at twice its forward (§2.4); the extra terms count their
  // forward, backward and recompute bytes and kernels exactly, so they enter the forward at a third of that total.
  const ExtraWork extra = moe_extra_work(m, plan, x, routed_activation);
  c.memory_fwd_s = memory_bound_time_s(
      permute + sort_bytes + scores + routed_activation + shared_activation + extra.bytes / 3.0,
      kMoeMemoryKernelsFwd + sort_kernels + extra.kernels / 3.0, gpu);
  // What of it runs between dispatch and combine, in the combined 1F1B schedule's experts piece (Megatron-LM
  // fine_grained_callables.py submodule_moe_forward: dispatch_postprocess -> experts -> combine_preprocess): the
  // second permutation, the routed experts' activation (one fused launch) and the terms above. The router, the first
  // permutation and the shared experts run in the attention piece (docs/model.md §15.4).
  c.experts_memory_fwd_s =
      memory_bound_time_s(sort_bytes + routed_activation + extra.bytes / 3.0, sort_kernels + 1.0 + extra.kernels / 3.0, gpu);
}

// Dispatch and combine (EP) and the expert-TP gathers.
void moe_dispatch(const ModelSpec& m, const PlanSpec& plan, int micro_batch, const IslandLayout& l,
                  const ExpertGrid& x, MoeBlockCost& c) noexcept {
  const double k = m.moe.top_k;
  // Inside the scale-up domain at the NVLink all-to-all rate; an EP group spanning nodes sends the share bound for
  // other nodes over scale-out, the rest over scale-up, at the same time. DeepEP sends one copy per destination node
  // and forwards inside it (DeepSeek-V3 §3.2.2): the scale-out bytes shrink by min(k, nodes)/k.
  if (plan.ep > 1) {
    const double dispatch = dispatch_bytes(m, plan, micro_batch);
    const double combine = dispatch;
    const GroupPlacement g = l.ep_group;
    const double off_node = g.nodes > 1 ? (plan.ep - g.per_node) / (plan.ep - 1.0) : 0.0;
    const bool deepep = plan.ep_dispatcher == EpDispatcher::deepep;
    const double dedupe = deepep && g.nodes > 1
                              ? deepep_remote_node_copies(m.moe.experts, m.moe.top_k, g.nodes) /
                                    (k * (g.nodes - 1.0) / g.nodes)
                              : 1.0;
    // Inside a node DeepEP sends a token once to each rank holding one of its k experts (is_token_in_rank; the
    // receiver permutes it into its local experts), where the all-to-all sends every copy: of the k (R-1)/EP copies
    // bound for the node's other ranks, (R-1) (1 - miss) go, miss the chance a rank holds none of the k experts;
    // deepep_remote_node_copies over EP "nodes" of one rank each gives (EP-1) (1 - miss).
    const double dedupe_up = deepep ? deepep_remote_node_copies(m.moe.experts, m.moe.top_k, plan.ep) * plan.ep /
                                          ((plan.ep - 1.0) * k)
                                    : 1.0;
    const double up_bw = kAllToAllScaleupEfficiency * l.links.scaleup_bytes_per_s;
    const double out_bw = kAllToAllScaleoutEfficiency * l.links.scaleout_bytes_per_s;
    auto one = [&](double bytes) {
      const double up = bytes * (1.0 - off_node) * dedupe_up / up_bw;
      const double out = off_node > 0 ? bytes * off_node * dedupe / out_bw : 0.0;
      const double latency = off_node > 0 ? l.links.scaleout_latency_s : l.links.scaleup_latency_s;
      return latency + std::max(up, out);
    };
    c.all_to_all_s = (one(dispatch) + one(combine)) * busiest_expert_share(m.moe);
    c.all_to_all_bytes = (dispatch + combine) * busiest_expert_share(m.moe);
  }
  // Expert tensor parallelism: the received tokens are all-gathered in the ETP group and reduce-scattered back
  // (Megatron alltoall dispatcher, AllGather-V / ReduceScatter-V).
  if (plan.etp > 1) {
    const double bytes = x.copies * m.hidden * kActivationBytes;
    c.all_to_all_s += hierarchical_all_gather_s(bytes, l.etp_group, l.links) +
                      hierarchical_reduce_scatter_s(bytes, l.etp_group, l.links);
    c.all_to_all_bytes += 2.0 * bytes;
  }
}

}  // namespace

MoeBlockCost moe_block_cost(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, Precision precision,
                            int micro_batch, const IslandLayout& l) noexcept {
  MoeBlockCost c;
  const ExpertGrid x = expert_grid(m, plan, micro_batch);
  moe_gemms(m, gpu, plan, precision, x, c);
  moe_memory_kernels(m, gpu, plan, x, c);
  moe_dispatch(m, plan, micro_batch, l, x, c);
  return c;
}

double ep_overlap_slowdown(const GpuSpec& gpu, const PlanSpec& plan, const IslandLayout& l,
                           const MoeBlockCost& cost) noexcept {
  // NCCL's all-to-all occupies its channels like the other collectives (§6.6); DeepEP's kernels take a fixed SM
  // count instead: Megatron-Core moe_deepep_num_sms = 20 (transformer_config.py), the 20 of 132 SMs of DeepSeek-V3
  // §3.2.2.
  if (plan.ep_dispatcher != EpDispatcher::deepep || (l.ep_group.nodes <= 1 && l.ep_group.per_node <= 1))
    return collective_contention(gpu, l.ep_group, cost.all_to_all_bytes, cost.all_to_all_s);
  // At the all-to-alls' average rate, their bytes over their time (§6.6).
  const double rate = cost.all_to_all_s > 0 ? cost.all_to_all_bytes / cost.all_to_all_s : 0.0;
  return contention_slowdown(gpu, kDeepEpSms, rate);
}

double ep_overlap_unpaired_share(const PlanSpec& plan, double microbatches) noexcept {
  // Megatron-LM schedules.py get_pp_rank_microbatches: the first rank runs (pp-1)*2 + (vpp-1)*pp warm-up forwards
  // with virtual stages (pp-1 without), plus one more with overlap_moe_expert_parallel_comm; without pipelining the
  // first micro-batch's forward and the last one's backward run alone (combined_1f1b.py). As many backwards run
  // alone in the cool-down. Share of the model-chunk forwards (and backwards) that run alone:
  const double vpp = plan.interleave > 1 ? plan.interleave : 1.0;
  const double pp = plan.pp;
  const double warmup = (pp - 1.0) * (vpp > 1 ? 2.0 : 1.0) + (vpp - 1.0) * pp + 1.0;
  const double chunks = std::max(1.0, microbatches * vpp);
  return std::min(1.0, warmup / chunks);
}

double ep_comm_per_block_s(const MoeBlockCost& cost, const PlanSpec& plan, const EpOverlapWindows& w,
                           double microbatches, double slowdown) noexcept {
  // Forward dispatch + combine, backward their transposes (docs/model.md §15.4); recomputing the MoE block (or
  // the whole block under full recompute) runs the forward pair again.
  const bool recomputed = plan.moe_recompute == MoeRecompute::layer || plan.recompute == Recompute::full ||
                          plan.recompute == Recompute::op_selective;
  const double pair = cost.all_to_all_s;
  const double comm = pair * (recomputed ? 3.0 : 2.0);
  if (!plan.ep_overlap) return comm;
  // Megatron's combined 1F1B (model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run): per block, the
  // forward of one micro-batch and the backward of another in four phases, each one all-to-all on the comm stream
  // against one piece of compute on the compute stream. With delayed weight gradients the experts' backward splits
  // into its data and weight halves.
  const double one = 0.5 * pair;
  const double paired = exposed_after_overlap(one, w.attention_fwd_s, slowdown) +
                        exposed_after_overlap(one, 0.5 * w.experts_bwd_s, slowdown) +
                        exposed_after_overlap(one, 0.5 * w.experts_bwd_s + w.experts_fwd_s, slowdown) +
                        exposed_after_overlap(one, w.attention_bwd_s, slowdown);
  // The warm-up forwards and cool-down backwards have no partner; a recomputed pair runs inside the backward.
  const double alone = ep_overlap_unpaired_share(plan, microbatches);
  return alone * 2.0 * pair + (1.0 - alone) * paired + (recomputed ? pair : 0.0);
}

}  // namespace shardmeter::model
