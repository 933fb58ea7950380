#pragma once
// Parameter counts from the model's dimensions.
#include "model/model_spec.hpp"

namespace shardmeter::model {

struct ParameterCounts {
  double layer_matmul = 0;   // weight matrices of one transformer block (the FLOP-relevant part)
  double layer = 0;          // all parameters of one block (matrices, biases, norms)
  double embedding = 0;      // token embedding (+ learned positions)
  double output_head = 0;    // untied output projection (0 when tied)
  double final_norm = 0;
  double total = 0;
};

// Megatron/GPT layout: per block QKV, output projection, MLP (GELU: 2 matrices, SwiGLU: 3), two norms.
// GPT-3: 12*L*h^2 + 13*L*h + V*h + s*h (+ final norm) = 174.6B (Narayanan et al. 2021, §5.1).
ParameterCounts count_parameters(const ModelSpec& model) noexcept;

}  // namespace shardmeter::model
