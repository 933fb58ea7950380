#pragma once
// Bytes per element of the tensors mixed-precision training moves and keeps in bf16/fp16, in one place so that
// every formula (memory, layer costs, collectives, the WAN) uses the same sizes.

namespace shardmeter::model {

inline constexpr double kActivationBytes = 2.0;  // activations, and the messages made of them (TP, CP, pipeline)
inline constexpr double kWeightBytes = 2.0;      // the parameters' working copy, also what ZeRO-3/FSDP gathers

}  // namespace shardmeter::model
