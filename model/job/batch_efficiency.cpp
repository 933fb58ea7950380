#include "model/job/batch_efficiency.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/spec/estimate_warnings.hpp"

namespace shardmeter::model {

namespace {

// docs/model.md §9.7. Kaplan et al. 2020 (arXiv 2001.08361) Eq. 1.5: L(N, D) = [(N_c/N)^(a_N/a_D) + D_c/D]^a_D.
constexpr double kLossN = 8.8e13;            // N_c, non-embedding parameters
constexpr double kLossD = 5.4e13;            // D_c, tokens
constexpr double kAlphaN = 0.076;
constexpr double kAlphaD = 0.095;
// Kaplan et al. Eq. 1.4 / 5.3: B_crit(L) = B* / L^(1/alpha_B), the gradient noise scale of McCandlish et al. 2018.
constexpr double kNoiseBatchTokens = 2e8;    // B*, tokens
constexpr double kAlphaB = 0.21;
// DeepSeek LLM (arXiv 2401.02954) §3.1 Eq. 1: B_opt = 0.2920 C^0.3271 tokens, C in FLOPs.
constexpr double kOptimalScale = 0.2920;
constexpr double kOptimalPower = 0.3271;
constexpr double kFlopsPerParameterToken = 6;   // C = 6 N D (Kaplan et al. §2.1)
constexpr double kChinchillaTokensPerParameter = 20;
// The data behind the constants (range of validity, docs/model.md §9.7): Kaplan's B_crit up to 1.5B non-embedding
// parameters; DeepSeek's batch grid from 1e17 to 3e20 FLOPs.
constexpr double kMaxFittedParameters = 1.5e9;
constexpr double kMaxFittedFlops = 3e20;

// The terms of N and D alone: L(N, D), B_noise and B_opt (four std::pow, most of this function's cost).
struct ScaleTerms {
  double n = std::numeric_limits<double>::quiet_NaN(), d = 0;  // the inputs they were computed for (NaN: none yet)
  double loss_nats = 0, noise_batch_tokens = 0, optimal_batch_tokens = 0;
};

ScaleTerms scale_terms(double n, double d) noexcept {
  ScaleTerms t{n, d};
  t.loss_nats = std::pow(std::pow(kLossN / n, kAlphaN / kAlphaD) + kLossD / d, kAlphaD);
  t.noise_batch_tokens = kNoiseBatchTokens / std::pow(t.loss_nats, 1.0 / kAlphaB);
  t.optimal_batch_tokens = kOptimalScale * std::pow(kFlopsPerParameterToken * n * d, kOptimalPower);
  return t;
}

// A search estimates millions of candidates of one model and token budget: the terms of the last (N, D) seen on
// this thread are kept and reused when both inputs are bit for bit the same, so every value is exactly the one the
// formulas give (a memo of a pure function, never shared between threads; docs/performance.md, "Instructions per
// estimate after issues 29-33").
const ScaleTerms& scale_terms_memo(double n, double d) noexcept {
  thread_local ScaleTerms last;
  if (!(n == last.n && d == last.d)) last = scale_terms(n, d);
  return last;
}

}  // namespace

BatchEfficiency batch_efficiency(const BatchInput& in) noexcept {
  BatchEfficiency b;
  if (!(in.parameters > 0) || !(in.batch_tokens > 0)) return b;
  const double n = in.parameters;
  const double d = in.budget_tokens > 0 ? in.budget_tokens : kChinchillaTokensPerParameter * n;
  const ScaleTerms& terms = scale_terms_memo(n, d);
  b.loss_nats = terms.loss_nats;
  b.noise_batch_tokens = terms.noise_batch_tokens;
  b.optimal_batch_tokens = terms.optimal_batch_tokens;
  const double flops = kFlopsPerParameterToken * n * d;
  const double excess = (1.0 + in.batch_tokens / b.noise_batch_tokens) /
                        (1.0 + b.optimal_batch_tokens / b.noise_batch_tokens);
  b.token_efficiency = std::min(1.0, 1.0 / excess);
  // The warning marks an extrapolated penalty: only where the penalty applies (B > B_opt).
  if (in.batch_tokens > b.optimal_batch_tokens && (n > kMaxFittedParameters || flops > kMaxFittedFlops))
    b.warnings |= bit(Warning::batch_beyond_data);
  return b;
}

}  // namespace shardmeter::model
