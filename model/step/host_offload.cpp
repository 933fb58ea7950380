#include "model/step/host_offload.hpp"

#include <algorithm>

namespace shardmeter::model {

double host_link_bytes_per_s(const GpuSpec& gpu) noexcept {
  return gpu.host_link_bytes_per_s * gpu.host_link_efficiency;  // docs/model.md §7.15 (efficiency assumed)
}

double activation_offload_exposed_s(double block_bytes, int offloaded, double layers, double forward_s,
                                    double backward_s, const GpuSpec& gpu) noexcept {
  const double link = host_link_bytes_per_s(gpu);
  if (offloaded <= 0 || layers <= 0 || link <= 0) return 0.0;
  // docs/model.md §7.15: one stream of n copies of c seconds each, beside (L - 1) of the L blocks' compute.
  const double copies_s = offloaded * block_bytes / link;
  const double hidden = (layers - 1.0) / layers;
  return std::max(0.0, copies_s - hidden * forward_s) + std::max(0.0, copies_s - hidden * backward_s);
}

double optimizer_offload_s(Stack stack, const OptimizerOffloadWork& w, const GpuSpec& gpu) noexcept {
  const double link = host_link_bytes_per_s(gpu);
  if (w.params <= 0 || link <= 0 || gpu.host_adam_params_per_s <= 0) return 0.0;
  // docs/model.md §7.16: gradients to the host, the CPU optimizer step, updated parameters back.
  const double d2h = w.params * w.grad_bytes_per_param / link;
  const double cpu = w.params / gpu.host_adam_params_per_s;
  const double h2d = w.params * w.param_bytes_per_param / link;
  switch (stack) {
    case Stack::megatron:
    case Stack::megatron_te:
      // HybridDeviceOptimizer with --overlap-cpu-optimizer-d2h-h2d: one CPU optimizer per parameter on their own
      // D2H / H2D streams, so the three pipeline and the slowest sets the time.
      return std::max({d2h, cpu, h2d});
    case Stack::deepspeed:
    case Stack::deepspeed_2021:
      // ZeRO-Offload: gradients leave during the backward; the CPU step and the parameter copy follow it.
      return std::max(0.0, d2h - w.backward_s) + cpu + h2d;
    case Stack::torch_fsdp1:
    case Stack::torch_fsdp2: break;
  }
  return d2h + cpu + h2d;
}

}  // namespace shardmeter::model
