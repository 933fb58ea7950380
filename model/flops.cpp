#include "model/flops.hpp"

#include "model/parameters.hpp"

namespace shardmeter::model {

FlopCounts count_flops(const ModelSpec& m, Recompute recompute, double recomputed_share) noexcept {
  const double s = m.seq_len;
  const double q_out = static_cast<double>(m.heads) * m.head_dim;
  FlopCounts f;
  // 2 FLOPs per multiply-accumulate, per token, per weight  [docs/model.md §1.2]
  f.layer_matmul_fwd = 2.0 * s * count_parameters(m).layer_matmul;
  // QK^T and AV: 2 * 2 * s^2 * (a*d) without mask; causal mask halves it (current Megatron) [docs/model.md §1.2]
  f.attention_fwd = 0.5 * 4.0 * s * s * q_out;
  f.logits_fwd = 2.0 * s * m.hidden * static_cast<double>(m.vocab);
  const double forward = m.layers * (f.layer_matmul_fwd + f.attention_fwd) + f.logits_fwd;
  f.model_per_sequence = 3.0 * forward;  // backward = 2x forward (input and weight gradients)
  double recomputed = 0;
  if (recompute == Recompute::selective) recomputed = m.layers * f.attention_fwd;
  if (recompute == Recompute::full) recomputed = recomputed_share * m.layers * (f.layer_matmul_fwd + f.attention_fwd);
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
