#pragma once
// How much a collective running beside compute slows that compute: NCCL kernels occupy SMs (one thread block per
// channel) and HBM bandwidth (ring steps copy through FIFOs) for as long as they run (docs/model.md §6.6).
#include <algorithm>

#include "model/comm/collectives.hpp"
#include "model/spec/hardware_spec.hpp"

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
// No collective ever holds more than half the SMs (keeps 1/(1-f) finite for odd inputs).
inline constexpr double kMaxResourceShare = 0.5;

// Fractional slowdown of compute overlapped with a collective that runs `channels` thread blocks and moves
// `comm_bytes_per_s` through this GPU, averaged over the collective's duration (§6.6):
//   f_sm = channels / SMs, f_bw = min(1, 3 * rate / (hbm_efficiency * HBM bandwidth))
//   delta = w f_sm / (1 - f_sm) + (1 - w) f_bw,  scaled by the GPU's bounded `contention_scale`.
// The HBM term is linear: the memory-bound part of the window moves its bytes plus the collective's 3 bytes per byte
// received through the same HBM, so hiding B bytes costs (1 - w) 3 B / HBM seconds whatever the link rate (issue 31:
// with f/(1 - f) at the link's rate, a faster link slowed the step).
constexpr double contention_slowdown(const GpuSpec& gpu, double channels, double comm_bytes_per_s) noexcept {
  const double f_sm = std::min(kMaxResourceShare, gpu.sm_count > 0 ? channels / gpu.sm_count
                                                                    : kDefaultCollectiveSmShare);
  const double hbm = gpu.hbm_efficiency * gpu.hbm_bytes_per_s;
  const double f_bw = std::min(1.0, hbm > 0 ? kHbmBytesPerCommByte * comm_bytes_per_s / hbm : 1.0);
  const double delta = kTensorCoreShare * f_sm / (1.0 - f_sm) + (1.0 - kTensorCoreShare) * f_bw;
  return gpu.contention_scale * delta;
}

// Slowdown from one collective of `group` that moves `bytes` through each GPU in `comm_s` (its modelled time,
// latency and every stage included): 24 channels inside a node, 16 once it spans nodes; the rate is the collective's
// average, bytes / comm_s, not the link's peak (docs/model.md §6.6). Bytes through a GPU: the payload for an
// all-gather or reduce-scatter, twice it for an all-reduce ((n-1)/n taken as 1).
constexpr double collective_contention(const GpuSpec& gpu, GroupPlacement group, double bytes, double comm_s) noexcept {
  if (comm_s <= 0 || bytes <= 0) return 0.0;
  if (group.nodes > 1) return contention_slowdown(gpu, kNcclChannelsInterNode, bytes / comm_s);
  if (group.per_node > 1) return contention_slowdown(gpu, kNcclChannelsIntraNode, bytes / comm_s);
  return 0.0;
}

}  // namespace shardmeter::model
