#pragma once
// How many synchronous-training tokens one DiLoCo token is worth (token efficiency), as a function of model size N,
// replicas M, sync interval H, Streaming overlap tau and the token budget: the fitted model of docs/model.md §9.4.
#include <cstdint>

namespace shardmeter::model {

struct ConvergenceInput {
  double parameters = 0;            // N
  int replicas = 1;                 // M: islands training their own replica
  int inner_steps = 100;            // H
  int overlap_steps = 0;            // tau, inner steps (Streaming DiLoCo)
  double tokens_per_parameter = 20; // loss-equivalent training tokens / N (0: Chinchilla-optimal 20 assumed)
  int fragments = 1;                // P: Streaming DiLoCo fragments (no quality term for >= 3 layers each)
  int layers = 0;                   // the model's layers (0: unknown, no fragment check)
};

struct Convergence {
  double loss_increase = 0;         // r = L_DiLoCo / L_DP - 1 at equal trained tokens
  double token_efficiency = 1;      // (1 + r)^(2 / alpha_DP), capped at 1
  std::uint32_t warnings = 0;       // model::Warning bits: inputs outside the fitted data
};

// r = c (M-1)^p (N/1e9)^-g  +  h0 (M-1)^q l(H) min(1, 20/(D/N))^0.5  +  r_tau
// l(H) = log2(clamp(H, 30, 100)/30) + kappa log2(max(H, 100)/100)
// r_tau = 0 for tau <= 10; eager outer-step overlap 0.0075 at tau = H, 0.022 at tau = 2H, linear in tau/H between.
Convergence diloco_convergence(const ConvergenceInput& in) noexcept;

}  // namespace shardmeter::model
