#pragma once
// The training job: batch sizes, token budget and numerics.
#include <cstdint>

#include "model/spec/enums.hpp"

namespace shardmeter::model {

struct TrainingSpec {
  std::int64_t global_batch = 0;   // sequences per optimizer step (all replicas)
  int micro_batch = 1;             // sequences per micro-step per model replica
  double tokens = 0;               // training budget in tokens (wall-clock and total cost)
  double warmup_tokens = 0;        // learning-rate warm-up at the start of `tokens`; costs nothing, the exports write it
  Precision precision = Precision::bf16;
  Optimizer optimizer = Optimizer::adamw;
  int grad_reduce_bytes = 2;       // bytes per gradient element on the wire (2 = bf16/fp16, 4 = fp32)
  StateDtype optimizer_state_dtype = StateDtype::fp32;   // moment states (docs/model.md §7.2)
  MasterWeights master_weights = MasterWeights::fp32;    // fp32 master copy, or none (docs/model.md §7.2)
  // precision fp8 only (docs/model.md §2.2): GEMM weights kept and all-gathered in fp8 (Megatron --fp8-param-gather,
  // NeMo fp8_params, torchtitan enable_fsdp_float8_all_gather), and the scaling recipe of the casts.
  bool fp8_params = false;
  Fp8Recipe fp8_recipe = Fp8Recipe::stack_default;
};

}  // namespace shardmeter::model
