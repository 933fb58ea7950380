#pragma once
// The time host-memory offload costs (docs/model.md §7.15, §7.16): the part of the activation copies the host
// link cannot hide under a stage's forward and backward, and the optimizer offload's gradient copy to the host,
// the host CPU's optimizer step and the parameter copy back, as each framework overlaps them.
#include "model/spec/enums.hpp"
#include "model/spec/hardware_spec.hpp"

namespace shardmeter::model {

// Bytes per second a pinned-memory copy reaches over the GPU's host link, per direction.
double host_link_bytes_per_s(const GpuSpec& gpu) noexcept;

// Exposed seconds per micro-batch of offloading `offloaded` of a stage's `layers` blocks, `block_bytes` of saved
// activations each: the copies to the host run beside the forward of every block but the first, those back beside
// the backward of every block but the last (TE's one offload stream; §7.15):
//   max(0, n c - (L - 1)/L F) + max(0, n c - (L - 1)/L B),  c = block_bytes / host link.
double activation_offload_exposed_s(double block_bytes, int offloaded, double layers, double forward_s,
                                    double backward_s, const GpuSpec& gpu) noexcept;

// What one optimizer step's offload moves and computes, per GPU.
struct OptimizerOffloadWork {
  double params = 0;                 // parameters whose optimizer state is on the host (the offloaded share)
  double grad_bytes_per_param = 0;   // bytes per gradient copied to the host
  double param_bytes_per_param = 0;  // bytes per updated parameter copied back
  double backward_s = 0;             // the last micro-batch's backward, which gradient copies may hide under
};

// Exposed seconds per step (§7.16): Megatron overlaps the three per parameter (max), DeepSpeed hides the gradient
// copy under the backward and runs the step and the copy back in turn, FSDP's CPU offload runs all three in turn.
double optimizer_offload_s(Stack stack, const OptimizerOffloadWork& work, const GpuSpec& gpu) noexcept;

}  // namespace shardmeter::model
