#include "model/memory/mla_memory.hpp"

#include "model/kernels/mla.hpp"
#include "model/parallel/recompute.hpp"
#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

// [docs/model.md §7.13]
MlaSavedSbh mla_saved_sbh(const ModelSpec& m, const PlanSpec& plan) noexcept {
  MlaSavedSbh out;
  if (!uses_mla(m)) return out;
  const double h = m.hidden, a = m.heads, t = plan.tp;
  const double r_q = m.mla.q_lora_rank, r_kv = m.mla.kv_lora_rank, d_r = m.mla.rope_head_dim;
  out.latents = kActivationBytes * (2.0 * r_q + (r_kv + d_r) + r_kv) / h;
  if (!recomputes_module(plan, RecomputeModule::mla_up_proj))
    out.qkv = kActivationBytes * a * (2.0 * qk_head_dim(m) + v_head_dim(m)) / (h * t);
  out.attention_out = kActivationBytes * a * v_head_dim(m) / (h * t);
  return out;
}

}  // namespace shardmeter::model
