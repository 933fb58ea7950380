#include "model/long_context_accuracy.hpp"

#include "model/enums.hpp"

namespace shardmeter::model {

std::uint32_t long_context_warnings(const ModelSpec& m, const PlanSpec& plan) noexcept {
  // docs/model.md §2.9: the four Megatron-MoE-ModelZoo runs at 16k-128k were predicted 11.5-55.8 % long.
  if (plan.attention != AttentionKernel::flash || !is_megatron_core(plan.stack)) return 0;
  return m.seq_len >= kLongContextTokens ? bit(Warning::long_context) : 0u;
}

}  // namespace shardmeter::model
