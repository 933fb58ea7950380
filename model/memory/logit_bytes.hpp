#pragma once
// Bytes per logit element the loss keeps on the stage that holds the head, by how each stack computes its loss
// (docs/model.md §7.7).
#include "model/spec/enums.hpp"

namespace shardmeter::model {

// 6 (2 + 4: the 16-bit logits and the fp32 copy the loss works on: Megatron's vocab-parallel cross entropy,
// DeepSpeed's), 12 on torch_fsdp2 (3 x 4: torchtitan's eager cross_entropy(pred.float()) at the start of its
// backward holds the saved fp32 log-softmax, nll_loss's fp32 gradient and log-softmax's fp32 input gradient;
// §7.7.1) or 4 on torch_fsdp1 (2 + 2: llm-foundry's default
// flash-attn fused cross entropy keeps the 16-bit logits and writes a 16-bit gradient, no fp32 copy; fms-fsdp's
// CrossEntropyLoss runs on the bf16 logits of FSDP mixed precision and saves a bf16 log-softmax).
double logit_bytes_per_element(Stack stack) noexcept;

}  // namespace shardmeter::model
