#pragma once
// Which blocks of a mixture-of-experts model route their tokens to experts, and what one expert holds
// (docs/model.md §15.1). With model.moe.experts = 0 every block is dense and these counts are 0.
#include "model/spec/model_spec.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

inline bool is_moe(const ModelSpec& m) noexcept { return m.moe.experts > 0; }

// Blocks with an MoE MLP: after the first `dense_layers`, every `moe_every`-th block (Megatron --moe-layer-freq
// counted from the first MoE block: DeepSeek-V3 61 layers, 3 dense -> 58; Mixtral 32 of 32).
inline int moe_layer_count(const ModelSpec& m) noexcept {
  if (!is_moe(m) || m.layers <= m.moe.dense_layers) return 0;
  const int after = m.layers - m.moe.dense_layers;
  const int every = m.moe.moe_every > 0 ? m.moe.moe_every : 1;
  return (after + every - 1) / every;
}
inline int dense_layer_count(const ModelSpec& m) noexcept { return m.layers - moe_layer_count(m); }

// Matrices of one MLP of inner width `width`: GELU 2*h*w, SwiGLU 3*h*w [docs/model.md §1.1].
inline double mlp_matmul_params(const ModelSpec& m, double width) noexcept {
  return (m.ffn_type == FfnType::swiglu ? 3.0 : 2.0) * m.hidden * width;
}
// Biases of one such MLP when model.bias: the up (and gate) outputs and the down output.
inline double mlp_bias_params(const ModelSpec& m, double width) noexcept {
  return m.bias ? (m.ffn_type == FfnType::swiglu ? 2.0 : 1.0) * width + m.hidden : 0.0;
}

// One routed expert, matrices and biases (Mixtral 8x7B: 3*4096*14336 = 176,160,768).
inline double expert_params(const ModelSpec& m) noexcept {
  return mlp_matmul_params(m, m.moe.expert_ffn_hidden) + mlp_bias_params(m, m.moe.expert_ffn_hidden);
}
// The router of one MoE block: an h x E gate, plus one bias per expert when the model has biases (gpt-oss) or a
// sigmoid router with aux-loss-free balancing (DeepSeek-V3's e_score_correction_bias).
inline double router_params(const ModelSpec& m) noexcept {
  const double e = m.moe.experts;
  return e * m.hidden + (m.bias || m.moe.router == MoeRouter::sigmoid ? e : 0.0);
}
// The shared experts of one MoE block.
inline double shared_expert_params(const ModelSpec& m) noexcept {
  return m.moe.shared_experts * (mlp_matmul_params(m, m.moe.shared_expert_ffn_hidden) +
                                 mlp_bias_params(m, m.moe.shared_expert_ffn_hidden));
}

// Ratio of the busiest expert-parallel rank's routed tokens to the mean: model.load_imbalance, cut by the capacity
// factor when tokens beyond capacity are dropped (capacity_factor > 0).
inline double busiest_expert_share(const MoeSpec& moe) noexcept {
  return moe.capacity_factor > 0 && moe.capacity_factor < moe.load_imbalance ? moe.capacity_factor : moe.load_imbalance;
}

// Routed token copies the busiest expert-parallel rank processes in one MoE block and micro-batch: the GPU's
// b*s/(cp*tp) tokens x top-k x ETP x busiest_expert_share (docs/model.md §15.4). The rows model/moe/moe_cost.cpp times
// and model/parallel/fp8.cpp casts.
inline double busiest_rank_routed_copies(const ModelSpec& m, const PlanSpec& plan, int micro_batch) noexcept {
  return micro_batch * static_cast<double>(m.seq_len) / plan.cp / plan.tp * m.moe.top_k * plan.etp *
         busiest_expert_share(m.moe);
}

// TP collectives an MoE block does not run on the attention's TP group: the routed experts take their tokens by the
// all-to-all on the expert grid (their own ETP collectives are model/moe/moe_cost.cpp's), so the MLP-side all-gather /
// reduce-scatter (or all-reduce) of a dense block is absent unless shared experts run as a TP-split MLP (Megatron-Core
// MoELayer: the dispatcher's TP group is expt_tp; SharedExpertMLP is a TP MLP) [docs/model.md §15.4].
inline double moe_block_tp_collectives_saved(const ModelSpec& m) noexcept { return m.moe.shared_experts > 0 ? 0.0 : 1.0; }

}  // namespace shardmeter::model
