#pragma once
// Transformer Engine's fp8 copies of the GEMM weights, as TE allocates them per recipe and GPU (docs/model.md §7.14):
// the cached fp8 weight + transpose beside a 16-bit weight, or the fp8 primary weight that replaces it
// (`fp8_params`, Megatron's --fp8-param-gather).
#include "model/spec/enums.hpp"
#include "model/parallel/fp8.hpp"
#include "model/spec/hardware_spec.hpp"

namespace shardmeter::model {

// True where cuBLASLt runs fp8 GEMMs on non-TN layouts, so TE keeps no transposed copy of a per-tensor-scaled fp8
// tensor: compute capability 10.x-11.x or 13.x and later (Blackwell; TE `nvte_is_non_tn_fp8_gemm_supported`). A GPU
// of unknown compute capability (0) is treated as Hopper (transposes kept).
bool fp8_gemm_transpose_free(const GpuSpec& gpu) noexcept;

// MXFP8 (E8M0 scale per 32 elements) needs Blackwell's block-scaled tensor cores: compute capability 10.0 or later.
bool gpu_runs_mxfp8(const GpuSpec& gpu) noexcept;

// Bytes per element of one GEMM weight quantized by TE for both its forward (rowwise) and backward (columnwise)
// use: per-tensor scaling (delayed, current) 1 B rowwise + 1 B transpose, 1 B on a transpose-free GPU; MXFP8
// rowwise and columnwise data 1 B each plus one 1-byte E8M0 scale per 32 elements each: 2 + 2/32 = 2.0625 B.
// `stack_default` reads as delayed (Megatron-Core's default recipe).
double te_fp8_weight_bytes_per_element(Fp8Recipe recipe, bool transpose_free) noexcept;

// Bytes per GEMM weight element on the GPU beyond its 16-bit working copy (kWeightBytes):
// - TE's cached workspace (megatron_te without fp8 params): te_fp8_weight_bytes_per_element, kept across the step's
//   micro-batches (the stage's fp8 weights and transposes, Hopper delayed: +2 B);
// - fp8 primary weights (megatron_te with fp8_params): te_fp8_weight_bytes_per_element - 2, the fp8 weight and its
//   cached columnwise copy replacing the 16-bit copy (Hopper: 0; Blackwell per-tensor: -1; MXFP8: +1/16);
// - 0 under FSDP/HSDP (TE caches nothing for FSDP-sharded weights; the gather buffers carry them, §7.6) and on the
//   stacks that run TE without the Megatron micro-batch cache (torch_fsdp1, deepspeed) or torchao (torch_fsdp2).
double fp8_weight_extra_bytes_per_param(const Fp8Use& use, Fp8Recipe recipe, Sharding sharding,
                                        bool transpose_free) noexcept;

}  // namespace shardmeter::model
