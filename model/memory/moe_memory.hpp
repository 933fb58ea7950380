#pragma once
// Memory of the routed experts on one GPU (docs/model.md §15.5): the stage's expert parameters split over
// EP x ETP, with gradients and optimizer state sharded over the expert-data-parallel group as plan.sharding shards
// the dense part over its data-parallel group. 0 for dense models.
#include "model/parallel/layout.hpp"
#include "model/kernels/parameters.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

// Routed-expert parameters one GPU holds for `layers` blocks (before any data-parallel sharding).
double expert_params_per_gpu(const ParameterCounts& params, const IslandLayout& layout, double layers) noexcept;

// Weights + gradients + optimizer state of those parameters, in bytes.
double expert_states_bytes(const Scenario& scenario, const IslandLayout& layout, const ParameterCounts& params,
                           double layers) noexcept;

// Activation bytes an MoE model's average block adds over the dense block of layer_activation_bytes: the MLP
// stores k routed copies (at the busiest rank's share) plus the shared experts instead of one ffn_hidden-wide
// MLP, and the permuted input and dispatch buffers (k copies of the block input, twice). 0 for dense models.
double moe_extra_activation_bytes(const ModelSpec& model, const PlanSpec& plan, int micro_batch) noexcept;

}  // namespace shardmeter::model
