#include "model/memory/host_offload_memory.hpp"

#include <algorithm>

namespace shardmeter::model {

double activation_kept_share(const PlanSpec& plan, double layers) noexcept {
  if (plan.activation_offload_layers <= 0 || layers <= 0) return 1.0;
  // TE's DefaultOffloadSynchronizer: "peak memory usage of saving activations is (num_layers -
  // num_offloaded_layers) * T" (docs/model.md §7.15).
  return std::max(0.0, (layers - plan.activation_offload_layers) / layers);
}

void remove_offloaded_states(const PlanSpec& plan, MemoryBreakdown& mem) noexcept {
  const double f = plan.optimizer_offload_fraction;
  if (f <= 0) return;
  // Megatron's HybridDeviceOptimizer, DeepSpeed ZeRO-Offload: the offloaded parameters' fp32 copy and moments live
  // in pinned host memory; the gradient buffers stay (docs/model.md §7.16).
  mem.optimizer_bytes *= 1.0 - f;
  // FSDP's CPU offload keeps every shard (parameters, gradients, optimizer state) on the host; the gathered units
  // (fsdp_buffers_bytes) are still built on the GPU.
  if (plan.stack == Stack::torch_fsdp1 || plan.stack == Stack::torch_fsdp2) {
    mem.weights_bytes *= 1.0 - f;
    mem.gradients_bytes *= 1.0 - f;
  }
}

}  // namespace shardmeter::model
