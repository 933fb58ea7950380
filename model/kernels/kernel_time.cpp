#include "model/kernels/kernel_time.hpp"

#include <algorithm>

namespace shardmeter::model {

namespace {
// fp8 GEMMs reach a lower share of their (2x) peak than bf16: MAMF H100 71 % vs 80 % (docs/model.md §2.2).
constexpr double kFp8RelativeEfficiency = 0.71 / 0.80;
constexpr double kBytesPerElement = 2.0;     // bf16/fp16 operands and outputs
constexpr double kFp8BytesPerElement = 1.0;  // fp8 operands; the output stays 16-bit (docs/model.md §2.2)
}  // namespace

double dimension_efficiency(double dim, double half_dim) noexcept { return dim / (dim + half_dim); }

double gemm_time_s(double m, double n, double k, const GpuSpec& gpu, Precision precision) noexcept {
  if (m <= 0 || n <= 0 || k <= 0) return 0.0;
  double peak = gpu.peak_flops_per_s;
  double efficiency = gpu.gemm_efficiency;
  double operand_bytes = kBytesPerElement;
  // A consistent scenario never asks for fp8 on a GPU without it (docs/model.md §2.2, rule fp8_not_supported);
  // a hand-built one falls back to the 16-bit peak.
  if (precision == Precision::fp8 && gpu.peak_fp8_flops_per_s > 0) {
    peak = gpu.peak_fp8_flops_per_s;
    efficiency *= kFp8RelativeEfficiency;
    operand_bytes = kFp8BytesPerElement;
  }
  const double tile = dimension_efficiency(m, gpu.gemm_half_dim) * dimension_efficiency(n, gpu.gemm_half_dim) *
                      dimension_efficiency(k, gpu.gemm_half_dim);
  const double compute_s = 2.0 * m * n * k / (peak * efficiency * tile);
  const double traffic_s =
      (operand_bytes * (m * k + k * n) + kBytesPerElement * m * n) / (gpu.hbm_bytes_per_s * gpu.hbm_efficiency);
  return std::max(compute_s, traffic_s) + gpu.kernel_overhead_s;
}

double memory_bound_time_s(double bytes, double kernels, const GpuSpec& gpu) noexcept {
  return bytes / (gpu.hbm_bytes_per_s * gpu.hbm_efficiency) + kernels * gpu.kernel_overhead_s;
}

}  // namespace shardmeter::model
