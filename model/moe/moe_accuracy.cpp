#include "model/moe/moe_accuracy.hpp"

#include "model/kernels/moe_layers.hpp"

namespace shardmeter::model {

std::uint32_t moe_accuracy_warnings(const ModelSpec& m, const PlanSpec& plan, Precision precision) noexcept {
  // Every published MoE row ran Megatron-Core; the other stacks have no MoE measurement to compare with.
  if (!is_moe(m) || moe_layer_count(m) == 0) return 0;
  if (!is_megatron_core(plan.stack)) return 0;
  std::uint32_t w = 0;
  // docs/model.md §15.8: 4 of the 5 published runs with 16 local experts per GPU were predicted 12.2-32.5 % short
  // (tests/test_moe_accuracy.cpp recomputes the warning texts' figures from `validate`).
  if (plan.ep > 0 && m.moe.experts / plan.ep >= kManyLocalExperts) w |= bit(Warning::moe_many_local_experts);
  // docs/model.md §15.8: the gpt-oss-120b runs (clamped SwiGLU, biased experts; §15.4's unfused terms) were
  // predicted 6.6-27.8 % short.
  if (m.moe.activation_clamp > 0 || m.bias) w |= bit(Warning::moe_unfused_expert_path);
  // docs/model.md §15.8: the two fp8 runs (Megatron-Bridge 26.04.01, Qwen3 on H100) were missed by about a fifth,
  // one each way.
  if (precision == Precision::fp8) w |= bit(Warning::moe_fp8);
  return w;
}

}  // namespace shardmeter::model
