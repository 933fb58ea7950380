#pragma once
// The slowest rank of a synchronous step: every collective waits for the last rank to arrive, so a step over N ranks
// whose per-rank compute time varies runs at the pace of the slowest of N draws (docs/model.md §5.6).
#include <algorithm>
#include <cmath>

namespace shardmeter::model {

// Spread (standard deviation / mean) of one rank's compute time per step, fitted on the published weak-scaling
// series (docs/model.md §5.6, §13.1). One constant for every GPU type and stack.
inline constexpr double kRankJitterCv = 0.014;

// Expected maximum of n independent standard normal draws, by the Gumbel (extreme-value) limit with its first
// correction: b_n + γ / sqrt(2 ln n), b_n = sqrt(2 ln n) - (ln ln n + ln 4π) / (2 sqrt(2 ln n)), γ = 0.5772 the
// Euler-Mascheroni constant (docs/model.md §5.6). 0 for a single rank. Over-estimates the exact value by 0.18 at
// n = 2, 0.1 at n = 8, and by less than 0.01 from n ≈ 1000 on.
inline double expected_max_standard_normal(double n) noexcept {
  if (!(n >= 2.0)) return 0.0;
  constexpr double kEulerGamma = 0.5772156649015329;
  constexpr double kLog4Pi = 2.5310242469692907;   // ln(4π)
  const double ln_n = std::log(n);
  const double r = std::sqrt(2.0 * ln_n);
  return r - (std::log(ln_n) + kLog4Pi) / (2.0 * r) + kEulerGamma / r;
}

// Time per step the whole job loses waiting for its slowest rank: cv · E[max of `ranks` N(0,1)] · the per-rank
// time that varies (`varying_s`: compute, recompute and memory-bound kernels).
inline double rank_jitter_s(double varying_s, double ranks, double cv = kRankJitterCv) noexcept {
  return cv * expected_max_standard_normal(ranks) * varying_s;
}

// Standard deviation of the maximum of n independent standard normal draws, by the same Gumbel limit: its scale
// a_n = 1 / sqrt(2 ln n) times π / sqrt 6 (docs/model.md §5.6); 1 (one draw) below n = 2.
inline double sd_max_standard_normal(double n) noexcept {
  if (!(n >= 2.0)) return 1.0;
  constexpr double kPiOverSqrt6 = 1.2825498301618641;
  return kPiOverSqrt6 / std::sqrt(2.0 * std::log(n));
}

// Expected time per micro-batch of a pipeline whose ranks fall into two groups of unequal load (docs/model.md §5.6):
// group k has n_k ranks, each taking t_k per micro-batch of which v_k varies from rank to rank with spread cv·v_k.
// The pipeline runs at its slowest rank, max over both groups of t_k + cv·v_k·Z_k (Z_k the largest of n_k standard
// normal draws, mean and spread by the Gumbel forms above); the largest of the two is taken by Clark's formula for
// the maximum of two independent normal variables. A group of fewer than one rank is absent.
inline double slowest_of_two_groups_s(double t_a, double v_a, double n_a, double t_b, double v_b, double n_b,
                                      double cv = kRankJitterCv) noexcept {
  const double mean_a = t_a + cv * v_a * expected_max_standard_normal(n_a);
  if (!(n_b >= 1.0)) return mean_a;
  const double mean_b = t_b + cv * v_b * expected_max_standard_normal(n_b);
  const double sd_a = cv * v_a * sd_max_standard_normal(n_a);
  const double sd_b = cv * v_b * sd_max_standard_normal(n_b);
  const double theta = std::sqrt(sd_a * sd_a + sd_b * sd_b);
  if (!(theta > 0.0)) return std::max(mean_a, mean_b);
  constexpr double kInvSqrt2 = 0.7071067811865476;
  constexpr double kInvSqrt2Pi = 0.3989422804014327;
  const double alpha = (mean_a - mean_b) / theta;
  const double cdf = 0.5 * std::erfc(-alpha * kInvSqrt2);
  return mean_a * cdf + mean_b * (1.0 - cdf) + theta * kInvSqrt2Pi * std::exp(-0.5 * alpha * alpha);
}

}  // namespace shardmeter::model
