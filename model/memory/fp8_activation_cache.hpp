#pragma once
// DeepSeek-V3's low-precision storage of saved activations (arXiv 2412.19437 §3.3.2, "Low-Precision Storage and
// Communication"; docs/model.md §7.12), plan.fp8_activation_cache: on top of the fp8 GEMM inputs a Transformer-Engine
// style stack already saves in fp8 (fp8_saved_activation_delta_bytes, §2.2), (1) the attention output, the input of
// the output projection that attention's backward also reads, is saved once in the 12-bit E5M6 format (1.5 B per
// element) instead of flash attention's 16-bit output plus the projection's fp8 copy; (2) the routed experts' SwiGLU
// inputs (gate and up, 2 f_e per routed copy) are saved in fp8 (1 B instead of 2 B; the SwiGLU output is then
// recomputed, which moe_recompute activation already says).
#include "model/parallel/fp8.hpp"
#include "model/spec/model_spec.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

inline constexpr double kE5m6Bytes = 1.5;  // 1 sign + 5 exponent + 6 mantissa bits

// Change of one block's saved activations (bytes, one micro-batch, one GPU), averaged over dense and MoE blocks like
// the other per-block terms. 0 unless plan.fp8_activation_cache with fp8-saved GEMM inputs, and under full or
// op_selective recompute (which keep no such tensor).
double fp8_activation_cache_delta_bytes(const ModelSpec& model, const PlanSpec& plan, int micro_batch,
                                        const Fp8Use& use) noexcept;

}  // namespace shardmeter::model
