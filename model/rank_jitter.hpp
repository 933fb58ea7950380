#pragma once
// The slowest rank of a synchronous step: every collective waits for the last rank to arrive, so a step over N ranks
// whose per-rank compute time varies runs at the pace of the slowest of N draws (docs/model.md §5.6).
#include <algorithm>
#include <cmath>

namespace shardmeter::model {

// Spread (standard deviation / mean) of one rank's compute time per step, fitted on the published weak-scaling
// series (docs/model.md §5.6, §13.1). One constant for every GPU type and stack.
inline constexpr double kRankJitterCv = 0.014;

// Mean and standard deviation of the maximum of n independent standard normal draws, by the Gumbel
// (extreme-value) limit (docs/model.md §5.6), computed together: they share r = sqrt(2 ln n).
// Mean: b_n + γ / r, b_n = r - (ln ln n + ln 4π) / (2r), γ = 0.5772 the Euler-Mascheroni constant; 0 for a single
// rank. It over-estimates the exact value by 0.18 at n = 2, 0.1 at n = 8, and by less than 0.01 from n ≈ 1000 on.
// Spread: the Gumbel scale a_n = 1 / r times π / sqrt 6; 1 (one draw) below n = 2.
struct MaxOfNormals {
  double mean = 0.0;
  double sd = 1.0;
};
inline MaxOfNormals max_of_standard_normals_formula(double n) noexcept {
  if (!(n >= 2.0)) return {};
  constexpr double kEulerGamma = 0.5772156649015329;
  constexpr double kLog4Pi = 2.5310242469692907;   // ln(4π)
  constexpr double kPiOverSqrt6 = 1.2825498301618641;
  const double ln_n = std::log(n);
  const double r = std::sqrt(2.0 * ln_n);
  return {r - (std::log(ln_n) + kLog4Pi) / (2.0 * r) + kEulerGamma / r, kPiOverSqrt6 / r};
}

// The same values (bit for bit): for a whole multiple of kExpectedMaxTableStep ranks up to kExpectedMaxTableRanks
// they are read from a table of the formula's values built once (model/rank_jitter.cpp), which saves two logs per
// group of ranks in every estimate (docs/performance.md, "Third round"); other counts compute them each time.
inline constexpr int kExpectedMaxTableStep = 8;
inline constexpr int kExpectedMaxTableRanks = 65536;
MaxOfNormals max_of_standard_normals(double n) noexcept;
inline double expected_max_standard_normal(double n) noexcept { return max_of_standard_normals(n).mean; }
inline double sd_max_standard_normal(double n) noexcept { return max_of_standard_normals(n).sd; }

// Time per step the whole job loses waiting for its slowest rank: cv · E[max of `ranks` N(0,1)] · the per-rank
// time that varies (`varying_s`: compute, recompute and memory-bound kernels).
inline double rank_jitter_s(double varying_s, double ranks, double cv = kRankJitterCv) noexcept {
  return cv * expected_max_standard_normal(ranks) * varying_s;
}

// Expected time per micro-batch of a pipeline whose ranks fall into two groups of unequal load (docs/model.md §5.6):
// group k has n_k ranks, each taking t_k per micro-batch of which v_k varies from rank to rank with spread cv·v_k.
// The pipeline runs at its slowest rank, max over both groups of t_k + cv·v_k·Z_k (Z_k the largest of n_k standard
// normal draws, mean and spread by the Gumbel forms above); the largest of the two is taken by Clark's formula for
// the maximum of two independent normal variables. A group of fewer than one rank is absent.
inline double slowest_of_two_groups_s(double t_a, double v_a, double n_a, double t_b, double v_b, double n_b,
                                      double cv = kRankJitterCv) noexcept {
  const MaxOfNormals z_a = max_of_standard_normals(n_a);
  const double mean_a = t_a + cv * v_a * z_a.mean;
  if (!(n_b >= 1.0)) return mean_a;
  const MaxOfNormals z_b = max_of_standard_normals(n_b);
  const double mean_b = t_b + cv * v_b * z_b.mean;
  const double sd_a = cv * v_a * z_a.sd;
  const double sd_b = cv * v_b * z_b.sd;
  const double theta = std::sqrt(sd_a * sd_a + sd_b * sd_b);
  if (!(theta > 0.0)) return std::max(mean_a, mean_b);
  constexpr double kInvSqrt2 = 0.7071067811865476;
  constexpr double kInvSqrt2Pi = 0.3989422804014327;
  const double alpha = (mean_a - mean_b) / theta;
  // Beyond 9 spreads apart the other group's share (erfc(9/√2)/2 < 1.2e-19) and the correction term
  // (θ·e^(-40.5)/√(2π) < 1e-18·θ) are below half an ulp of the larger mean: the formula returns that mean exactly.
  if (alpha > 9.0) return mean_a;
  if (alpha < -9.0) return mean_b;
  const double cdf = 0.5 * std::erfc(-alpha * kInvSqrt2);
  return mean_a * cdf + mean_b * (1.0 - cdf) + theta * kInvSqrt2Pi * std::exp(-0.5 * alpha * alpha);
}

}  // namespace shardmeter::model
