#pragma once
// How much a collective running beside compute slows that compute: NCCL kernels occupy SMs (one thread block per
// channel) and HBM bandwidth (ring steps copy through FIFOs) for as long as they run (docs/model.md §6.6).
#include <algorithm>

#include "model/collectives.hpp"
#include "model/hardware_spec.hpp"

namespace shardmeter::model {

// Thread blocks (= channels) of one NCCL ring collective on large messages: 24 inside an 8-GPU NVLink node,
// 16 once the ring crosses nodes over one NIC per GPU (docs/model.md §6.6).
inline constexpr double kNcclChannelsIntraNode = 24;
inline constexpr double kNcclChannelsInterNode = 16;
// SMs Transformer Engine's userbuffers reserve for pipelined/bulk TP overlap (TE `num_sm = 16`, §6.6).
inline constexpr double kTpOverlapSms = 16;
// Local HBM bytes per byte a ring all-gather / reduce-scatter receives (write into the FIFO, read it, write the
// output): about 3 (§6.6).
inline constexpr double kHbmBytesPerCommByte = 3.0;
// Share of an overlapped window that is tensor-core bound (loses SMs); the rest is memory bound (loses HBM).
inline constexpr double kTensorCoreShare = 0.85;
// SM share of one collective on a GPU whose SM count is not given (inline GPU): 16 / 108 = 0.148 ~ 0.15 (§6.6).
inline constexpr double kDefaultCollectiveSmShare = 0.15;
// No resource is ever more than half taken by the collective (keeps 1/(1-f) finite for odd inputs).
inline constexpr double kMaxResourceShare = 0.5;

// Fractional slowdown of compute overlapped with a collective that runs `channels` thread blocks and moves
// `comm_bytes_per_s` through this GPU:
//   f_sm = channels / SMs, f_bw = 3 * rate / (hbm_efficiency * HBM bandwidth)
//   delta = w f_sm / (1 - f_sm) + (1 - w) f_bw / (1 - f_bw),  scaled by the GPU's bounded `contention_scale`.
constexpr double contention_slowdown(const GpuSpec& gpu, double channels, double comm_bytes_per_s) noexcept {
  const double f_sm = std::min(kMaxResourceShare, gpu.sm_count > 0 ? channels / gpu.sm_count
                                                                    : kDefaultCollectiveSmShare);
  const double hbm = gpu.hbm_efficiency * gpu.hbm_bytes_per_s;
  const double f_bw =
      std::min(kMaxResourceShare, hbm > 0 ? kHbmBytesPerCommByte * comm_bytes_per_s / hbm : kMaxResourceShare);
  const double delta =
      kTensorCoreShare * f_sm / (1.0 - f_sm) + (1.0 - kTensorCoreShare) * f_bw / (1.0 - f_bw);
  return gpu.contention_scale * delta;
}

// Slowdown from a collective of `group`: NVLink rate and 24 channels inside a node, NIC rate and 16 channels once
// it spans nodes.
constexpr double group_contention(const GpuSpec& gpu, GroupPlacement group, const GroupLinks& links) noexcept {
  if (group.nodes > 1) return contention_slowdown(gpu, kNcclChannelsInterNode, links.scaleout_bytes_per_s);
  if (group.per_node > 1) return contention_slowdown(gpu, kNcclChannelsIntraNode, links.scaleup_bytes_per_s);
  return 0.0;
}

}  // namespace shardmeter::model
