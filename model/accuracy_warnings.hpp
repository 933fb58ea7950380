#pragma once
// The accuracy warnings an estimate carries where published runs of its kind were missed by more than the stated
// accuracy: MoE plans (docs/model.md §15.8) and long context on the Megatron stacks (§2.9). Tables mark such rows
// with `!`, export headers print them as `accuracy:` lines.
#include <cstdint>

#include "model/long_context_accuracy.hpp"
#include "model/moe_accuracy.hpp"

namespace shardmeter::model {

inline constexpr std::uint32_t kAccuracyWarnings = kMoeAccuracyWarnings | bit(Warning::long_context);

inline std::uint32_t accuracy_warnings(const ModelSpec& m, const PlanSpec& plan, Precision precision) noexcept {
  return moe_accuracy_warnings(m, plan, precision) | long_context_warnings(m, plan);
}

}  // namespace shardmeter::model
