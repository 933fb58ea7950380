#pragma once
// One token efficiency for every plan (docs/model.md §9.8): loss-equivalent tokens per trained token, the product of
// the batch term (model/job/batch_efficiency.hpp, §9.7) and, for DiLoCo, the convergence term (model/job/diloco.hpp, §9.4).
// Synchronous and DiLoCo plans are compared on the same effective tokens.
#include <cstdint>

#include "model/kernels/parameters.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

struct TokenEfficiency {
  double batch = 1;                 // §9.7, for the batch one optimizer sees (DiLoCo: one replica's)
  double diloco = 1;                // §9.4 (1 for synchronous plans)
  double token_efficiency = 1;      // batch x diloco
  double optimizer_batch_tokens = 0;  // B of §9.7: the global batch, over the replicas under DiLoCo
  double noise_batch_tokens = 0;    // B_noise of §9.7
  double optimal_batch_tokens = 0;  // B_opt of §9.7
  std::uint32_t warnings = 0;       // model::Warning bits of both terms
};

// Non-embedding parameters a token passes through (N of Kaplan et al. and DeepSeek's M / 6): the active parameters
// without the embedding and the output head.
double non_embedding_parameters(const ParameterCounts& params) noexcept;

// `replicas`: the islands training their own replica (DiLoCo); 1 for synchronous plans.
TokenEfficiency token_efficiency(const Scenario& s, const ParameterCounts& params, int replicas) noexcept;

}  // namespace shardmeter::model
