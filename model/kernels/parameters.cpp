#include "model/kernels/parameters.hpp"

#include "model/kernels/mla.hpp"
#include "model/kernels/moe_layers.hpp"

namespace shardmeter::model {

ParameterCounts count_parameters(const ModelSpec& m) noexcept {
  const double h = m.hidden;
  const double f = m.ffn_hidden;
  const double q_out = static_cast<double>(m.heads) * m.head_dim;
  const double kv_out = static_cast<double>(m.kv_heads) * m.head_dim;

  ParameterCounts p;
  // Attention: Q (h x a*d), K and V (h x g*d each), output (a*d x h); MLA: latent projections  [docs/model.md §1.1,
  // §15.2]
  const double attention_matmul = attention_matmul_params(m);
  // MLP: GELU up+down (2*h*f); SwiGLU gate+up+down (3*h*f)  [Megatron-LM num_floating_point_operations]
  const double mlp_matmul = mlp_matmul_params(m, f);
  const double attention_biases = m.bias ? q_out + 2.0 * kv_out + h : 0.0;
  const double norm_params = m.norm == NormType::layernorm ? 2.0 * h : h;  // weight (+ bias)
  const double attention_block = attention_matmul + attention_biases + 2.0 * norm_params + mla_norm_params(m);
  const double dense_mlp = mlp_matmul + mlp_bias_params(m, f);

  p.embedding = static_cast<double>(m.vocab) * h;
  if (m.position_embedding == PositionEmbedding::learned) p.embedding += static_cast<double>(m.seq_len) * h;
  p.output_head = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h;
  p.final_norm = norm_params;

  const int moe_layers = moe_layer_count(m);
  if (moe_layers == 0) {
    p.layer_matmul = attention_matmul + mlp_matmul;
    p.layer = attention_block + dense_mlp;
    p.total = m.layers * p.layer + p.embedding + p.output_head + p.final_norm;
    p.active = p.total;
    return p;
  }
  // Mixture of experts [docs/model.md §15.1]: per-block figures are averages over the dense and MoE blocks.
  const double l = m.layers, l_moe = moe_layers, l_dense = dense_layer_count(m);
  const double k = m.moe.top_k, experts = m.moe.experts;
  const double expert = expert_params(m);
  const double shared_matmul = m.moe.shared_experts * mlp_matmul_params(m, m.moe.shared_expert_ffn_hidden);
  const double moe_outside_experts = router_params(m) + shared_expert_params(m);
  p.layer_matmul = attention_matmul +
                   (l_dense * mlp_matmul + l_moe * (k * mlp_matmul_params(m, m.moe.expert_ffn_hidden) + shared_matmul)) / l;
  p.layer = attention_block + (l_dense * dense_mlp + l_moe * moe_outside_experts) / l;
  p.expert_layer = l_moe * experts * expert / l;
  // Multi-token prediction, per depth (DeepSeek-V3 README_WEIGHTS.md): enorm + hnorm (2h), eh_proj (2h x h), one
  // MoE block, the shared head's norm (h); embedding and output head are the main model's.
  const double mtp_depth = 3.0 * h + 2.0 * h * h + attention_block + moe_outside_experts + experts * expert;
  p.mtp = m.mtp_layers * mtp_depth;
  p.total = l * (p.layer + p.expert_layer) + p.embedding + p.output_head + p.final_norm + p.mtp;
  p.active = p.total - (l_moe + m.mtp_layers) * (experts - k) * expert;
  return p;
}

}  // namespace shardmeter::model
