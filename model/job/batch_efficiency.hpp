#pragma once
// How many tokens a step of B tokens is worth against the same tokens at the loss-optimal batch: the critical-batch
// model of docs/model.md §9.7 (McCandlish et al. 2018's data/steps trade-off, Kaplan et al. 2020's critical batch,
// DeepSeek LLM 2024's optimal batch).
#include <cstdint>

namespace shardmeter::model {

struct BatchInput {
  double parameters = 0;         // N: non-embedding parameters a token passes through
  double batch_tokens = 0;       // B: tokens per optimizer step of one replica's optimizer
  double budget_tokens = 0;      // D: loss-equivalent training tokens (0: Chinchilla's 20 N assumed)
};

struct BatchEfficiency {
  double loss_nats = 0;          // L(N, D): Kaplan et al. Eq. 1.5, WebText2 nats (only to place B_noise)
  double noise_batch_tokens = 0; // B_noise = B* / L^(1/alpha_B): Kaplan et al. Eq. 1.4 / 5.3
  double optimal_batch_tokens = 0; // B_opt = 0.2920 C^0.3271, C = 6 N D: DeepSeek LLM Eq. 1
  double token_efficiency = 1;   // min(1, (1 + B_opt/B_noise) / (1 + B/B_noise))
  std::uint32_t warnings = 0;    // model::Warning bits
};

// E(B) / E_min = 1 + B / B_noise (McCandlish et al. Eq. 2.11 / Kaplan et al. Eq. 5.1); the budget D is what the
// loss-optimal batch needs, so a batch B > B_opt needs (1 + B/B_noise) / (1 + B_opt/B_noise) times the tokens.
BatchEfficiency batch_efficiency(const BatchInput& in) noexcept;

}  // namespace shardmeter::model
