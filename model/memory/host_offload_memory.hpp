#pragma once
// What host-memory offload takes off the GPU (docs/model.md §7.15, §7.16): the saved activations of the blocks
// Megatron-Core / Transformer Engine copy to the host (plan.activation_offload_layers), and the share of the optimizer
// state the host keeps and updates (plan.optimizer_offload_fraction).
#include "model/spec/estimate.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

// Share of a stage's per-block saved activations that stays on the GPU when `plan.activation_offload_layers` of its
// `layers` blocks are offloaded (§7.15): TE's default synchroniser keeps (layers - offloaded) blocks' activations,
// so (layers - offloaded) / layers; 1 without offload. Never below 0.
double activation_kept_share(const PlanSpec& plan, double layers) noexcept;

// Removes from `mem` the model states optimizer offload moves to the host (§7.16): the offloaded share of the
// optimizer state (master weights and moments); on the FSDP stacks (torch_fsdp1/2, CPU offload of every shard) also
// the sharded weights and gradients. Nothing without offload.
void remove_offloaded_states(const PlanSpec& plan, MemoryBreakdown& mem) noexcept;

}  // namespace shardmeter::model
