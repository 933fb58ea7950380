#pragma once
// Where the validation shows the model pessimistic at long context (docs/model.md §2.9): on the Megatron stacks the
// `attention` constant is fitted to calibrate rows of 2k-8k tokens and also carries per-token costs, so charged on
// the s^2 FLOPs of long sequences it makes core attention too slow. The estimate carries a Warning bit; its figures
// stay the model's.
#include <cstdint>

#include "model/estimate_warnings.hpp"
#include "model/model_spec.hpp"
#include "model/plan_spec.hpp"

namespace shardmeter::model {

// Sequence length from which the warning applies: the shortest of the published Megatron-Core runs predicted too
// slow, 16,384 tokens (+11.5 %; 32k-128k +28 to +56 %); the calibrate rows of the Megatron stacks stop at 8,192
// (docs/accuracy.md, "Held-out").
inline constexpr int kLongContextTokens = 16384;

// Warning::long_context for a flash-attention plan on a Megatron stack whose sequence reaches kLongContextTokens;
// 0 otherwise (torch_fsdp1's constant is fitted on llm-foundry rows up to 65k tokens, within 7 % there).
std::uint32_t long_context_warnings(const ModelSpec& m, const PlanSpec& plan) noexcept;

}  // namespace shardmeter::model
