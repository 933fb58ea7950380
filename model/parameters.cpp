#include "model/parameters.hpp"

namespace shardmeter::model {

ParameterCounts count_parameters(const ModelSpec& m) noexcept {
  const double h = m.hidden;
  const double f = m.ffn_hidden;
  const double q_out = static_cast<double>(m.heads) * m.head_dim;
  const double kv_out = static_cast<double>(m.kv_heads) * m.head_dim;
  const bool swiglu = m.ffn_type == FfnType::swiglu;

  ParameterCounts p;
  // Attention: Q (h x a*d), K and V (h x g*d each), output (a*d x h)  [docs/model.md §1.1]
  const double attention_matmul = h * q_out + 2.0 * h * kv_out + q_out * h;
  // MLP: GELU up+down (2*h*f); SwiGLU gate+up+down (3*h*f)  [Megatron-LM num_floating_point_operations]
  const double mlp_matmul = (swiglu ? 3.0 : 2.0) * h * f;
  p.layer_matmul = attention_matmul + mlp_matmul;

  double biases = 0;
  if (m.bias) biases = (q_out + 2.0 * kv_out + h) + ((swiglu ? 2.0 : 1.0) * f + h);
  const double norm_params = m.norm == NormType::layernorm ? 2.0 * h : h;  // weight (+ bias)
  p.layer = p.layer_matmul + biases + 2.0 * norm_params;

  p.embedding = static_cast<double>(m.vocab) * h;
  if (m.position_embedding == PositionEmbedding::learned) p.embedding += static_cast<double>(m.seq_len) * h;
  p.output_head = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h;
  p.final_norm = norm_params;
  p.total = m.layers * p.layer + p.embedding + p.output_head + p.final_norm;
  return p;
}

}  // namespace shardmeter::model
