#pragma once
// One GPU type and one link type, with the efficiency constants calibrated per type
// (scenarios/gpus.yaml and scenarios/links.yaml hold the numbers and their sources).
#include "model/spec/fixed_name.hpp"

namespace shardmeter::model {

// A class of link (NVLink generation, PCIe, InfiniBand, RoCE/EFA, WAN). Alpha-beta model:
// a message of n bytes over one hop costs latency_s + n / (bytes_per_s * efficiency).
struct LinkSpec {
  FixedName type;                // e.g. "nvlink3", "ib-hdr"; for reports only
  double bytes_per_s = 0;        // nominal unidirectional bandwidth of one endpoint
  double efficiency = 1;         // achievable fraction for large collectives (nccl-tests busbw / spec)
  double latency_s = 0;          // per-hop latency (alpha)

  double achievable_bytes_per_s() const { return bytes_per_s * efficiency; }
};

struct GpuSpec {
  FixedName name;                      // catalog name, e.g. "h100-sxm"
  double peak_flops_per_s = 0;         // dense bf16/fp16 tensor-core peak
  double peak_fp8_flops_per_s = 0;     // dense fp8 peak (0 = no fp8)
  double hbm_bytes = 0;                // usable device memory
  double hbm_bytes_per_s = 0;          // HBM bandwidth
  LinkSpec scaleup;                    // per-GPU scale-up link (NVLink / xGMI / PCIe)
  int scaleup_domain_gpus = 8;         // GPUs that share the scale-up fabric (8 for HGX, 72 for NVL72)
  double price_usd_per_gpu_hour = 0;   // on-demand
  double spot_price_usd_per_gpu_hour = 0;
  // Calibrated efficiency constants (one set per GPU family; docs/model.md §13). The defaults below apply to an
  // inline GPU without `efficiency:` and are assumed: docs/model.md §11.1.
  double gemm_efficiency = 0.7;        // fraction of peak reached by large training GEMMs
  double gemm_half_dim = 64;           // GEMM dimension at which tile efficiency halves (size dependence)
  double attention_efficiency = 0.5;   // fraction of peak reached by fused (flash) attention kernels
  double hbm_efficiency = 0.85;        // fraction of HBM bandwidth reached by memory-bound kernels
  double kernel_overhead_s = 4e-6;     // launch + sync cost per kernel
  int sm_count = 0;                    // streaming multiprocessors (compute units); 0 = unknown (docs/model.md §6.6)
  int compute_capability = 0;          // CUDA compute capability x 10 (90 Hopper, 100 Blackwell); 0 = unknown (§7.14)
  double contention_scale = 1.0;       // bounded calibration factor on the SM/HBM contention of overlapped
                                       // collectives (model/comm/contention.hpp; docs/model.md §6.6, §13)
  // Appended (issue 29): the GPU's link to host memory, per direction (PCIe or NVLink-C2C; 0 = unknown), the
  // fraction of it pinned-memory copies reach, and the host CPU's Adam rate per GPU (docs/model.md §7.15, §7.16).
  double host_link_bytes_per_s = 0;
  double host_link_efficiency = 0.8;
  double host_adam_params_per_s = 1e9;
};

}  // namespace shardmeter::model
