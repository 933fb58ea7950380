#include "model/parallel/fp8_memory.hpp"

#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

namespace {
constexpr double kMxfp8BlockElements = 32.0;  // TE MXFP8_BLOCK_SCALING_SIZE: one E8M0 scale per 32 elements
constexpr double kMxfp8ScaleBytes = 1.0;      // E8M0 (uint8)
}  // namespace

bool fp8_gemm_transpose_free(const GpuSpec& gpu) noexcept {
  const int cc = gpu.compute_capability;
  return (cc >= 100 && cc < 120) || cc >= 130;
}

bool gpu_runs_mxfp8(const GpuSpec& gpu) noexcept { return gpu.compute_capability >= 100; }

double te_fp8_weight_bytes_per_element(Fp8Recipe recipe, bool transpose_free) noexcept {
  if (recipe == Fp8Recipe::mxfp8) return 2.0 * (kFp8Bytes + kMxfp8ScaleBytes / kMxfp8BlockElements);
  return transpose_free ? kFp8Bytes : 2.0 * kFp8Bytes;
}

double fp8_weight_extra_bytes_per_param(const Fp8Use& use, Fp8Recipe recipe, Sharding sharding,
                                        bool transpose_free) noexcept {
  if (sharding == Sharding::fsdp || sharding == Sharding::hsdp) return 0.0;
  const double te_bytes = te_fp8_weight_bytes_per_element(recipe, transpose_free);
  if (use.weight_copies) return te_bytes;                                    // cache beside the 16-bit weight
  if (use.te_casts && use.param_gather) return te_bytes - kWeightBytes;      // fp8 primary weight replaces it
  return 0.0;
}

}  // namespace shardmeter::model
