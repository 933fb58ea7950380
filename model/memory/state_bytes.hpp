#pragma once
// Bytes per parameter of the model states a GPU keeps (gradients, master weights, optimizer moments) and of the
// optimizer update's HBM traffic, from the training numerics and the stack (docs/model.md §2.7, §7.1, §7.2).
#include "model/spec/enums.hpp"
#include "model/spec/training_spec.hpp"

namespace shardmeter::model {

// Bytes per element of one optimizer moment state: 4 (fp32) or 2 (bf16); 8-bit AdamW's states are 1 byte each.
double state_element_bytes(const TrainingSpec& training) noexcept;

// Gradient bytes per parameter held in memory (§7.1). Megatron-LM / Megatron-Core keep their main gradients in the
// gradient buffer the data-parallel reduction works on, whose element type is the reduction's
// (--accumulate-allreduce-grads-in-fp32: fp32; --grad-reduce-in-bf16 / NeMo grad_sync_dtype bf16: bf16), so
// training.grad_reduce_bytes. The other stacks: 2 (the 16-bit gradient; PyTorch AMP / FSDP's fp32 gradients
// of fp32 sharded parameters add up to the same total, §7.1).
double gradient_bytes_per_param(const TrainingSpec& training, Stack stack) noexcept;

// Optimizer-state bytes per parameter (ZeRO's K, §7.2): the master copy (4 with master_weights: fp32, else 0)
// plus the moments (AdamW two, SGD-momentum and Lion one) at state_element_bytes each. AdamW in fp32: 12.
double optimizer_bytes_per_param(const TrainingSpec& training) noexcept;

// HBM bytes the optimizer update touches per parameter it owns (§2.7): read the gradient the optimizer works on,
// read and write the weights it updates (fp32 master: 8, plus writing the 16-bit copy: 2; none: the 16-bit
// weights, 4) and read and write each moment. AdamW in fp32 with fp32 gradients: 4 + 10 + 16 = 30.
double optimizer_update_bytes_per_param(const TrainingSpec& training, Stack stack) noexcept;

}  // namespace shardmeter::model
