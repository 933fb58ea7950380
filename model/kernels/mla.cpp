#include "model/kernels/mla.hpp"

namespace shardmeter::model {

double attention_matmul_params(const ModelSpec& m) noexcept {
  const double h = m.hidden, a = m.heads;
  if (!uses_mla(m)) {
    const double q_out = a * m.head_dim;
    const double kv_out = static_cast<double>(m.kv_heads) * m.head_dim;
    return h * q_out + 2.0 * h * kv_out + q_out * h;  // [docs/model.md §1.1]
  }
  // [docs/model.md §15.2]
  const double r_q = m.mla.q_lora_rank, r_kv = m.mla.kv_lora_rank, d_r = m.mla.rope_head_dim;
  const double qk = qk_head_dim(m), dv = v_head_dim(m);
  const double query = r_q > 0 ? h * r_q + r_q * a * qk : h * a * qk;
  const double key_value = h * (r_kv + d_r) + r_kv * a * (m.head_dim + dv);
  return query + key_value + a * dv * h;
}

double mla_norm_params(const ModelSpec& m) noexcept {
  return uses_mla(m) ? static_cast<double>(m.mla.q_lora_rank) + m.mla.kv_lora_rank : 0.0;
}

}  // namespace shardmeter::model
