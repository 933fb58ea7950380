#include "model/kernels/flops.hpp"

#include "model/kernels/attention_window.hpp"
#include "model/kernels/mla.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/kernels/parameters.hpp"

namespace shardmeter::model {

namespace {
// Forward FLOPs per sequence of one block that torchtitan's per-op policy re-runs (docs/model.md §7.5): wk, wo
// and the MLP's second matmul (h x f) of a dense block; half of MLA's projections; an MoE block's routed and
// shared experts whole. Core attention is saved, its output being on the policy's list.
double op_selective_recomputed_flops(const ModelSpec& m) {
  const double s = m.seq_len, h = m.hidden;
  const double attention = uses_mla(m) ? 0.5 * attention_matmul_params(m)
                                       : h * (static_cast<double>(m.kv_heads) + m.heads) * m.head_dim;
  double mlp = h * static_cast<double>(m.ffn_hidden);
  if (is_moe(m)) {
    const double moe_share = static_cast<double>(moe_layer_count(m)) / m.layers;
    const double routed = m.moe.top_k * mlp_matmul_params(m, m.moe.expert_ffn_hidden) +
                          m.moe.shared_experts * mlp_matmul_params(m, m.moe.shared_expert_ffn_hidden);
    mlp = (1.0 - moe_share) * mlp + moe_share * routed;
  }
  return 2.0 * s * (attention + mlp);
}
}  // namespace

FlopCounts count_flops(const ModelSpec& m, Recompute recompute, double recomputed_share) noexcept {
  return count_flops(m, count_parameters(m), recompute, recomputed_share);
}

FlopCounts count_flops(const ModelSpec& m, const ParameterCounts& p, Recompute recompute,
                       double recomputed_share) noexcept {
  const double s = m.seq_len;
  FlopCounts f;
  // 2 FLOPs per multiply-accumulate, per token, per weight a token passes through (MoE: the top-k routed and the
  // shared experts; the router is not counted, as in Megatron-Core)  [docs/model.md §1.2, §15.3]
  f.layer_matmul_fwd = 2.0 * s * p.layer_matmul;
  // QK^T (a*d_qk) and AV (a*d_v): 2 * s^2 * a * (d_qk + d_v) without mask; causal mask halves it (current
  // Megatron). Without MLA d_qk = d_v = head_dim: 0.5 * 4 * s^2 * a * d  [docs/model.md §1.2, §15.3]
  f.attention_fwd = uses_mla(m) ? 0.5 * 2.0 * s * s * m.heads * (qk_head_dim(m) + v_head_dim(m))
                                : 0.5 * 4.0 * s * s * (static_cast<double>(m.heads) * m.head_dim);
  // Sliding-window blocks attend to at most `attention_window` keys: the mean share over the blocks [docs/model.md §2.8]
  f.attention_fwd *= attention_flop_share(m);
  f.logits_fwd = 2.0 * s * m.hidden * static_cast<double>(m.vocab);
  double forward = m.layers * (f.layer_matmul_fwd + f.attention_fwd) + f.logits_fwd;
  if (m.mtp_layers > 0) {
    // Each multi-token-prediction depth: one more MoE block, its 2h x h projection and one more output head
    // (Megatron-Core num_floating_point_operations)  [docs/model.md §15.3]
    const double h = m.hidden;
    const double moe_block = attention_matmul_params(m) +
                             m.moe.top_k * mlp_matmul_params(m, m.moe.expert_ffn_hidden) +
                             m.moe.shared_experts * mlp_matmul_params(m, m.moe.shared_expert_ffn_hidden);
    forward += m.mtp_layers * (2.0 * s * (moe_block + 2.0 * h * h) + f.attention_fwd + f.logits_fwd);
  }
  f.model_per_sequence = 3.0 * forward;  // backward = 2x forward (input and weight gradients)
  double recomputed = 0;
  if (recompute == Recompute::selective) recomputed = m.layers * f.attention_fwd;
  if (recompute == Recompute::full) recomputed = recomputed_share * m.layers * (f.layer_matmul_fwd + f.attention_fwd);
  if (recompute == Recompute::op_selective) recomputed = m.layers * op_selective_recomputed_flops(m);
  f.hardware_per_sequence = f.model_per_sequence + recomputed;
  return f;
}
double megatron_sc21_flops_per_step(const ModelSpec& m, double global_batch, bool full_recompute) noexcept {
  const double s = m.seq_len, l = m.layers, h = m.hidden, v = m.vocab;
  if (full_recompute) return 96.0 * global_batch * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
  return 72.0 * global_batch * s * l * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * l * h));
}

double megatron_core_2024_flops_per_step(const ModelSpec& m, double global_batch) noexcept {
  // 12*B*s*L*h^2 * [ (1 + g/a) + (f/h)*gamma + s/h + V/(2*L*h) ], gamma = 3/2 for SwiGLU  [docs/model.md §1.5]
  const double s = m.seq_len, l = m.layers, h = m.hidden, v = m.vocab;
  const double gamma = m.ffn_type == FfnType::swiglu ? 1.5 : 1.0;
  const double kv_ratio = static_cast<double>(m.kv_heads) / m.heads;
  return 12.0 * global_batch * s * l * h * h *
         ((1.0 + kv_ratio) + (m.ffn_hidden / h) * gamma + s / h + v / (2.0 * l * h));
}

}  // namespace shardmeter::model
