#pragma once
// Where the MoE validation shows the model optimistic (docs/model.md §15.8): the estimate carries a Warning bit
// when its plan is of a kind whose published runs took clearly longer than predicted. Not a correction: the
// figures stay the model's; the bit tells the user how far the measured runs of that kind were from them.
#include <cstdint>

#include "model/spec/estimate_warnings.hpp"
#include "model/spec/model_spec.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

// Local routed experts per GPU from which the warning applies: every published Megatron-Core run with 16 local
// experts but one was predicted 12-32 % short; the others with 8 or fewer within -12.5 to +6.2 %, gpt-oss's aside
// (docs/model.md §15.8).
inline constexpr int kManyLocalExperts = 16;

// The Warning bits moe_accuracy_warnings can set.
inline constexpr std::uint32_t kMoeAccuracyWarnings =
    bit(Warning::moe_many_local_experts) | bit(Warning::moe_unfused_expert_path) | bit(Warning::moe_fp8);

// Warning bits (model/spec/estimate_warnings.hpp) for an MoE plan trained in `precision`; 0 for dense models and
// non-Megatron stacks.
std::uint32_t moe_accuracy_warnings(const ModelSpec& m, const PlanSpec& plan, Precision precision) noexcept;

}  // namespace shardmeter::model
