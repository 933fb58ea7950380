#pragma once
// Attention shapes that multi-head latent attention (DeepSeek-V2/V3, docs/model.md §15.2) changes: the projection
// parameters of one block and the head dimensions core attention runs with. With model.mla.kv_lora_rank = 0 these
// are the ordinary multi-head / grouped-query attention figures of docs/model.md §1.1.
#include "model/spec/model_spec.hpp"

namespace shardmeter::model {

inline bool uses_mla(const ModelSpec& m) noexcept { return m.mla.kv_lora_rank > 0; }

// Query/key dimension per head in QK^T: head_dim (+ the decoupled rotary part with MLA).
inline double qk_head_dim(const ModelSpec& m) noexcept {
  return static_cast<double>(m.head_dim) + (uses_mla(m) ? m.mla.rope_head_dim : 0);
}
// Value dimension per head in AV and the output projection.
inline double v_head_dim(const ModelSpec& m) noexcept {
  return uses_mla(m) && m.mla.v_head_dim > 0 ? m.mla.v_head_dim : static_cast<double>(m.head_dim);
}

// Weight-matrix parameters of one block's attention (projections only; biases and norms apart).
// GQA: Q h*a*d, K and V h*g*d each, output a*d*h. MLA (DeepSeek-V3 inference/model.py, MLA module):
// wq_a h*r_q, wq_b r_q*a*(d+d_r) (or wq h*a*(d+d_r) without query compression), wkv_a h*(r_kv+d_r),
// wkv_b r_kv*a*(d+d_v), wo a*d_v*h.
double attention_matmul_params(const ModelSpec& m) noexcept;

// Norm parameters inside MLA (the RMSNorms on the query and key/value latents): r_q + r_kv; 0 without MLA.
double mla_norm_params(const ModelSpec& m) noexcept;

}  // namespace shardmeter::model
