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
// they are read from a table of the formula's values built once (model/step/rank_jitter.cpp), which saves two logs per
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

// The standard normal distribution function Φ(x), given gauss = exp(-x²/2) (the caller has it: Clark's formula needs
// φ(x) as well). W. J. Cody's ANORM (ACM TOMS Algorithm 715, 1993; SPECFUN), from Cody, "Rational Chebyshev
// approximations for the error function", Math. Comp. 23 (1969) 631-637 (docs/model.md §5.6): three near-minimax
// rational functions, which Cody gives as accurate to at least 18 significant digits. Unlike ANORM, the exp(-x²/2)
// factor is the caller's exp of the rounded x², not Cody's split of x² into an exact part and a remainder: that adds a
// relative error of at most x²·2⁻⁵³ (9·10⁻¹⁵ at |x| = 9) to the smaller of Φ(x) and 1 − Φ(x).
// Measured over |x| <= 9 in steps of 10⁻⁵: within 1.7·10⁻¹⁶ absolute of the long-double erfcl and 3.9·10⁻¹⁵ relative
// in the smaller tail (libm's 0.5·erfc(|x|/√2): 1.1·10⁻¹⁴, from rounding x/√2); tests/test_rank_jitter.cpp checks it
// against 0.5·std::erfc(-x/√2): within 2.2·10⁻¹⁶ absolute and 1.5·10⁻¹⁴ relative in the tail. It replaces erfc and
// one exp per estimate, about 130 instructions (docs/performance.md, "Fourth round").
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2π), φ(0)
inline double standard_normal_cdf(double x, double gauss) noexcept {
  const double y = std::fabs(x);
  if (y <= 0.66291) {  // Φ(0.66291) = 0.75
    constexpr double a[5] = {2.2352520354606839287, 161.02823106855587881, 1067.6894854603709582,
                             18154.981253343561249, 0.065682337918207449113};
    constexpr double b[4] = {47.20258190468824187, 976.09855173777669322, 10260.932208618978205,
                             45507.789335026729956};
    const double xsq = x * x;
    double num = a[4] * xsq, den = xsq;
    for (int i = 0; i < 3; ++i) {
      num = (num + a[i]) * xsq;
      den = (den + b[i]) * xsq;
    }
    return 0.5 + x * (num + a[3]) / (den + b[3]);
  }
  double tail;  // Φ(-|x|)
  if (y <= 5.656854248) {  // √32
    constexpr double c[9] = {0.39894151208813466764, 8.8831497943883759412, 93.506656132177855979,
                             597.27027639480026226,  2494.5375852903726711, 6848.1904505362823326,
                             11602.651437647350124,  9842.7148383839780218, 1.0765576773720192317e-8};
    constexpr double d[8] = {22.266688044328115691, 235.38790178262499861, 1519.377599407554805,
                             6485.558298266760755,  18615.571640885098091, 34900.952721145977266,
                             38912.003286093271411, 19685.429676859990727};
    double num = c[8] * y, den = y;
    for (int i = 0; i < 7; ++i) {
      num = (num + c[i]) * y;
      den = (den + d[i]) * y;
    }
    tail = gauss * ((num + c[7]) / (den + d[7]));
  } else {
    constexpr double p[6] = {0.21589853405795699,     0.1274011611602473639,  0.022235277870649807,
                             0.001421619193227893466, 2.9112874951168792e-5, 0.02307344176494017303};
    constexpr double q[5] = {1.28426009614491121, 0.468238212480865118, 0.0659881378689285515,
                             0.00378239633202758244, 7.29751555083966205e-5};
    const double xsq = 1.0 / (x * x);
    double num = p[5] * xsq, den = xsq;
    for (int i = 0; i < 4; ++i) {
      num = (num + p[i]) * xsq;
      den = (den + q[i]) * xsq;
    }
    tail = gauss * ((kInvSqrt2Pi - xsq * (num + p[4]) / (den + q[4])) / y);
  }
  return x > 0.0 ? 1.0 - tail : tail;
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
  const double alpha = (mean_a - mean_b) / theta;
  // Beyond 9 spreads apart the other group's share (erfc(9/√2)/2 < 1.2e-19) and the correction term
  // (θ·e^(-40.5)/√(2π) < 1e-18·θ) are below half an ulp of the larger mean: the formula returns that mean exactly.
  if (alpha > 9.0) return mean_a;
  if (alpha < -9.0) return mean_b;
  // One exp serves both φ(α) and Φ(α) (standard_normal_cdf below).
  const double gauss = std::exp(-0.5 * alpha * alpha);
  const double cdf = standard_normal_cdf(alpha, gauss);
  return mean_a * cdf + mean_b * (1.0 - cdf) + theta * kInvSqrt2Pi * gauss;
}

}  // namespace shardmeter::model
