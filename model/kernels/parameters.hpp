#pragma once
// Parameter counts from the model's dimensions.
#include "model/spec/model_spec.hpp"

namespace shardmeter::model {

// Mixture-of-experts models (docs/model.md §15) have two kinds of blocks (dense-MLP and MoE); the per-block
// figures are then averages over the `layers` blocks, so that `layers x` a figure is the whole stack.
struct ParameterCounts {
  double layer_matmul = 0;   // weight matrices of one transformer block a token passes through (the FLOP-relevant
                             // part: for MoE the top-k routed and the shared experts, not the router)
  double layer = 0;          // parameters of one block outside the routed experts (matrices, biases, norms, router,
                             // shared experts): split by TP and replicated over data parallelism
  double expert_layer = 0;   // routed-expert parameters of one block: split by EP x ETP (docs/model.md §15.5)
  double mtp = 0;            // multi-token-prediction modules (DeepSeek-V3), on the last pipeline stage
  double embedding = 0;      // token embedding (+ learned positions)
  double output_head = 0;    // untied output projection (0 when tied)
  double final_norm = 0;
  double total = 0;
  double active = 0;         // parameters one token uses: total minus the routed experts it is not sent to
};

// Megatron/GPT layout: per block QKV, output projection, MLP (GELU: 2 matrices, SwiGLU: 3), two norms.
// GPT-3: 12*L*h^2 + 13*L*h + V*h + s*h (+ final norm) = 174.6B (Narayanan et al. 2021, §5.1).
ParameterCounts count_parameters(const ModelSpec& model) noexcept;

}  // namespace shardmeter::model
