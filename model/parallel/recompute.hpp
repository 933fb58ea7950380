#pragma once
// Partial activation checkpointing: how many blocks of a stage are recomputed (docs/model.md §7.5).
#include <algorithm>

#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

// Blocks of a stage of `layers_per_stage` that run the plan's recompute policy. With `recompute: full` only
// `plan.recompute_layers` of them are checkpointed whole (Megatron --recompute-method block
// --recompute-num-layers N), the rest keep every activation; 0 means all blocks. Selective and none apply to all.
constexpr double recomputed_blocks(const PlanSpec& plan, double layers_per_stage) noexcept {
  if (plan.recompute != Recompute::full || plan.recompute_layers <= 0) return layers_per_stage;
  return std::min<double>(plan.recompute_layers, layers_per_stage);
}

// Whether recompute: selective re-runs `module` (plan.recompute_modules; docs/model.md §7.11). False under every other
// policy: none keeps everything, full and op_selective are their own policies.
constexpr bool recomputes_module(const PlanSpec& plan, RecomputeModule module) noexcept {
  return plan.recompute == Recompute::selective && ((plan.recompute_modules >> static_cast<unsigned>(module)) & 1u) != 0;
}

}  // namespace shardmeter::model
