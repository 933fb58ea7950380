#pragma once
// Cost of one transformer block for one micro-batch on one GPU: forward, backward and recomputation,
// split into GEMM compute, core attention, memory-bound work and tensor-parallel communication.
#include "model/parallel/layout.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

struct PassCost {
  double gemm_s = 0;
  double attention_s = 0;
  double memory_s = 0;
  double tp_comm_s = 0;   // exposed TP/SP collectives
  double compute_s() const { return gemm_s + attention_s; }
  double total_s() const { return gemm_s + attention_s + memory_s + tp_comm_s; }
};

struct LayerCost {
  PassCost forward;
  PassCost backward;
  PassCost recompute;       // extra forward work the recompute policy re-executes before backward
  double ep_all_to_all_bytes = 0;  // MoE: the bytes of ep_all_to_all_s (contention, §6.6)
  double ep_all_to_all_s = 0;  // MoE: one forward's dispatch + combine, averaged per block (model/moe/moe_cost.hpp)
  double ep_experts_fwd_s = 0; // MoE: the routed experts' forward GEMMs, averaged per block (EP overlap windows)
  double ep_experts_memory_fwd_s = 0;  // MoE: their memory-bound kernels (part of forward.memory_s), likewise
  CollectiveAlgorithm tp_algorithm = CollectiveAlgorithm::none;  // NCCL's choice for the TP collective (§3.5)
  CollectiveAlgorithm cp_algorithm = CollectiveAlgorithm::none;  // and for the CP all-gather
};

LayerCost layer_cost(const ModelSpec& model, const GpuSpec& gpu, const PlanSpec& plan, Precision precision,
                     int micro_batch, const IslandLayout& layout) noexcept;

// Throughput of cuDNN's fused flash attention (Transformer Engine, the megatron_te stack) at a kernel sequence length
// and head dim, relative to s = 4096, head_dim 128 (FlashAttention-3 Figs. 5-6, H100; docs/model.md §2.5).
double cudnn_flash_shape_factor(double seq_len, double head_dim) noexcept;

// The output projection and loss of the last pipeline stage, for one micro-batch (forward + backward).
PassCost logits_cost(const ModelSpec& model, const GpuSpec& gpu, Precision precision, int micro_batch,
                     const IslandLayout& layout) noexcept;

}  // namespace shardmeter::model
