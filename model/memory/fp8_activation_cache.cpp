#include "model/memory/fp8_activation_cache.hpp"

#include "model/kernels/mla.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

// [docs/model.md §7.12]
double fp8_activation_cache_delta_bytes(const ModelSpec& m, const PlanSpec& plan, int micro_batch,
                                        const Fp8Use& use) noexcept {
  if (!plan.fp8_activation_cache || !use.saved_inputs || plan.recompute == Recompute::full ||
      plan.recompute == Recompute::op_selective)
    return 0.0;
  const double t = plan.tp;
  const double tokens = micro_batch * static_cast<double>(m.seq_len) / plan.cp;
  // (1) The attention output: flash keeps its 16-bit output and TE an fp8 copy (2 + 1 B); standard attention only
  // the projection's fp8 copy (1 B). E5M6 replaces them with one 1.5-byte copy.
  const double kept_now = plan.attention == AttentionKernel::flash ? kActivationBytes + kFp8Bytes : kFp8Bytes;
  double delta = (kE5m6Bytes - kept_now) * tokens * m.heads * v_head_dim(m) / t;
  // (2) The routed experts' SwiGLU inputs, 2 f_e per routed copy, 2 B -> 1 B, in the MoE share of the blocks
  // (unless moe_recompute layer keeps only the routed part's input; GELU experts have no SwiGLU).
  if (is_moe(m) && m.ffn_type == FfnType::swiglu && plan.moe_recompute != MoeRecompute::layer) {
    const double moe_share = static_cast<double>(moe_layer_count(m)) / m.layers;
    const double copies = m.moe.top_k * busiest_expert_share(m.moe);
    delta -= (kActivationBytes - kFp8Bytes) * moe_share * tokens * copies * 2.0 * m.moe.expert_ffn_hidden / t;
  }
  return delta;
}

}  // namespace shardmeter::model
