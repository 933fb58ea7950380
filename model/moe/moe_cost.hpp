#pragma once
// Time of the mixture-of-experts part of one block for one micro-batch on one GPU (docs/model.md §15.4): the
// routed experts as grouped GEMMs over the tokens the busiest expert-parallel rank receives, the shared experts and
// the router as ordinary GEMMs, the permutation as memory-bound kernels, and the token dispatch/combine all-to-alls
// over the expert-parallel group. Called only for models with experts (model/kernels/moe_layers.hpp is_moe).
#include "model/parallel/layout.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

struct MoeBlockCost {
  double gemm_fwd_s = 0;        // routed + shared experts + router, forward
  double routed_gemm_fwd_s = 0; // the routed experts' grouped GEMMs alone (part of gemm_fwd_s)
  double memory_fwd_s = 0;      // router scores, top-k, permute and unpermute, forward
  double experts_memory_fwd_s = 0;  // the part of memory_fwd_s in the experts' piece of the EP overlap (below)
  double all_to_all_s = 0;      // one dispatch plus one combine (a forward's worth), plus ETP gathers
  double all_to_all_bytes = 0;  // bytes one GPU sends in them (dispatch + combine, + ETP gathers): contention (§6.6)
};

// Bytes one GPU sends in one token dispatch of one MoE block: its tokens x top-k x hidden x 2 bytes, the share
// bound for other ranks of the EP group ((EP-1)/EP). The tokens travel in 16 bits under fp8 training too: every
// Megatron-Core dispatcher sends the bf16 hidden states (docs/model.md §15.4).
double dispatch_bytes(const ModelSpec& model, const PlanSpec& plan, int micro_batch) noexcept;

// DeepEP sends a token once to each other node that holds one of its k experts (DeepSeek-V3 §3.2.2): the expected
// number of such nodes per token when the k experts are drawn uniformly from E spread evenly over `nodes` nodes.
double deepep_remote_node_copies(int experts, int top_k, int nodes) noexcept;

MoeBlockCost moe_block_cost(const ModelSpec& model, const GpuSpec& gpu, const PlanSpec& plan, Precision precision,
                            int micro_batch, const IslandLayout& layout) noexcept;

// The compute of one block and micro-batch that Megatron's combined 1F1B schedule pairs with the all-to-alls of
// another micro-batch (docs/model.md §15.4): the attention side (attention, router, permutation: everything of the
// block but the experts) and the experts, forward and backward.
struct EpOverlapWindows {
  double attention_fwd_s = 0;
  double experts_fwd_s = 0;
  double attention_bwd_s = 0;
  double experts_bwd_s = 0;
};

// Fractional slowdown of the compute an overlapped all-to-all runs beside (§6.6): NCCL channels, or DeepEP's SMs.
// `cost`: the block's all-to-alls, whose bytes over their time is the rate the contention sees.
double ep_overlap_slowdown(const GpuSpec& gpu, const PlanSpec& plan, const IslandLayout& layout,
                           const MoeBlockCost& cost) noexcept;

// Share of a micro-batch's all-to-alls that the combined 1F1B schedule cannot pair with another micro-batch: the
// forwards of the warm-up and the backwards of the cool-down run alone. `microbatches` per pipeline rank.
double ep_overlap_unpaired_share(const PlanSpec& plan, double microbatches) noexcept;

// Exposed expert-parallel communication of one MoE block per micro-batch: forward (dispatch + combine), backward
// (their transposes) and, when the MoE block is recomputed, its forward again; with plan.ep_overlap each of the
// four all-to-alls hides behind the compute Megatron's combined 1F1B schedule pairs it with (combine backward
// under the attention forward, dispatch forward under the experts' data gradient, dispatch backward under their
// weight gradient and the experts' forward, combine forward under the attention backward), except in the
// pipeline's warm-up and cool-down.
double ep_comm_per_block_s(const MoeBlockCost& cost, const PlanSpec& plan, const EpOverlapWindows& windows,
                           double microbatches, double slowdown) noexcept;

}  // namespace shardmeter::model
