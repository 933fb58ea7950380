#pragma once
// The slowest rank of a synchronous step: every collective waits for the last rank to arrive, so a step over N ranks
// whose per-rank compute time varies runs at the pace of the slowest of N draws (docs/model.md §5.6).
#include <cmath>

namespace shardmeter::model {

// Spread (standard deviation / mean) of one rank's compute time per step, fitted on the published weak-scaling
// series (docs/model.md §5.6, §13.1). One constant for every GPU type and stack.
inline constexpr double kRankJitterCv = 0.014;

// Expected maximum of n independent standard normal draws, by the Gumbel (extreme-value) limit with its first
// correction: b_n + γ / sqrt(2 ln n), b_n = sqrt(2 ln n) - (ln ln n + ln 4π) / (2 sqrt(2 ln n)), γ = 0.5772 the
// Euler-Mascheroni constant (docs/model.md §5.6). 0 for a single rank. Over-estimates the exact value by 0.18 at
// n = 2, 0.1 at n = 8, and by less than 0.01 from n ≈ 1000 on.
inline double expected_max_standard_normal_formula(double n) noexcept {
  if (!(n >= 2.0)) return 0.0;
  constexpr double kEulerGamma = 0.5772156649015329;
  constexpr double kLog4Pi = 2.5310242469692907;   // ln(4π)
  const double ln_n = std::log(n);
  const double r = std::sqrt(2.0 * ln_n);
  return r - (std::log(ln_n) + kLog4Pi) / (2.0 * r) + kEulerGamma / r;
}

// The same value (bit for bit): for a whole multiple of kExpectedMaxTableStep ranks up to kExpectedMaxTableRanks it
// is computed once per count and then read from a cache (model/rank_jitter.cpp), which saves the two logs of every
// estimate (docs/performance.md, "Third round"); other counts compute it each time.
inline constexpr int kExpectedMaxTableStep = 8;
inline constexpr int kExpectedMaxTableRanks = 65536;
double expected_max_standard_normal(double n) noexcept;

// Time per step the whole job loses waiting for its slowest rank: cv · E[max of `ranks` N(0,1)] · the per-rank
// time that varies (`varying_s`: compute, recompute and memory-bound kernels).
inline double rank_jitter_s(double varying_s, double ranks, double cv = kRankJitterCv) noexcept {
  return cv * expected_max_standard_normal(ranks) * varying_s;
}

}  // namespace shardmeter::model
