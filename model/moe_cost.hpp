#pragma once
// Time of the mixture-of-experts part of one block for one micro-batch on one GPU (docs/model.md §15.4): the
// routed experts as grouped GEMMs over the tokens the busiest expert-parallel rank receives, the shared experts and
// the router as ordinary GEMMs, the permutation as memory-bound kernels, and the token dispatch/combine all-to-alls
// over the expert-parallel group. Called only for models with experts (model/moe_layers.hpp is_moe).
#include "model/layout.hpp"
#include "model/scenario.hpp"

namespace shardmeter::model {

struct MoeBlockCost {
  double gemm_fwd_s = 0;        // routed + shared experts + router, forward
  double memory_fwd_s = 0;      // router scores, top-k, permute and unpermute, forward
  double all_to_all_s = 0;      // one dispatch plus one combine (a forward's worth), plus ETP gathers
};

// Bytes one GPU sends in one token dispatch of one MoE block: its tokens x top-k x hidden x bytes per element,
// the share bound for other ranks of the EP group ((EP-1)/EP). fp8 training dispatches in fp8 (DeepSeek-V3 §3.3).
double dispatch_bytes(const ModelSpec& model, const PlanSpec& plan, Precision precision, int micro_batch) noexcept;

MoeBlockCost moe_block_cost(const ModelSpec& model, const GpuSpec& gpu, const PlanSpec& plan, Precision precision,
                            int micro_batch, const IslandLayout& layout) noexcept;

// Exposed expert-parallel communication of one MoE block per micro-batch: forward (dispatch + combine), backward
// (their transposes) and, when the MoE block is recomputed, its forward again; with plan.ep_overlap the
// all-to-alls hide behind `window_s` of another micro-batch's compute (DualPipe / Megatron EP A2A overlap).
double ep_comm_per_block_s(const MoeBlockCost& cost, const PlanSpec& plan, double window_s,
                           double slowdown) noexcept;

}  // namespace shardmeter::model
