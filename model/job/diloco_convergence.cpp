#include "model/job/diloco_convergence.hpp"

#include <algorithm>
#include <cmath>

#include "model/spec/estimate_warnings.hpp"

namespace shardmeter::model {

namespace {

// docs/model.md §9.4: replica term fitted on Charles et al. 2025 (arXiv 2503.09799) Tables 4/5, H = 30, 34 points.
constexpr double kReplicaScale = 0.00352;      // c: relative loss increase per replica at 1B parameters
constexpr double kReplicaPower = 0.80;         // p: in (M - 1)
constexpr double kSizePower = 0.280;           // g: the penalty shrinks as N^-g
// Cadence term fitted on Streaming DiLoCo (arXiv 2501.18512) Table 6, H 30 -> 100, M = 2 and 4.
constexpr double kCadenceScale = 0.00393;      // h0: per doubling of H at M = 2
constexpr double kCadenceReplicaPower = 0.447; // q: in (M - 1)
constexpr double kCadenceBeyond100 = 0.25;     // kappa: flattening beyond H = 100 (DiLoCo 2023, 150M, H 50 -> 1000)
// Overlap of a whole outer step with eager updates (Kale et al. 2025, arXiv 2502.12996, Table 2).
constexpr double kEagerOneOuterStep = 0.0075;
constexpr double kEagerTwoOuterSteps = 0.022;
constexpr double kFreeOverlapSteps = 10;       // Streaming DiLoCo §3.3.2: < 0.2 % loss up to tau = 10
// Loss to compute-equivalent tokens: Charles et al. Table 7 (DP law exponent).
constexpr double kAlphaDp = -0.0953;
constexpr double kChinchillaTokensPerParameter = 20;

// The data the constants were fitted on (docs/model.md §9.4, range of validity).
constexpr double kMinParameters = 35e6, kMaxParameters = 10.5e9;   // the 10B runs, within 5 %
constexpr int kMaxReplicas = 8;
constexpr int kMaxInnerSteps = 300;
constexpr double kMaxTokensPerParameter = 250;
constexpr int kMinLayersPerFragment = 3;       // Streaming DiLoCo's fragments (Fig. 6; Table 5 within +-0.4 %)

}  // namespace

Convergence diloco_convergence(const ConvergenceInput& in) noexcept {
  Convergence c;
  if (in.replicas < 2) return c;
  const double m1 = in.replicas - 1.0;
  const double tokens_per_parameter =
      in.tokens_per_parameter > 0 ? in.tokens_per_parameter : kChinchillaTokensPerParameter;
  const double h = std::max(1, in.inner_steps);
  const double replica = kReplicaScale * std::pow(m1, kReplicaPower) * std::pow(in.parameters / 1e9, -kSizePower);
  const double cadence_doublings =
      std::log2(std::clamp(h, 30.0, 100.0) / 30.0) + kCadenceBeyond100 * std::log2(std::max(h, 100.0) / 100.0);
  const double damping = std::sqrt(std::min(1.0, kChinchillaTokensPerParameter / tokens_per_parameter));
  const double cadence = kCadenceScale * std::pow(m1, kCadenceReplicaPower) * cadence_doublings * damping;
  double overlap = 0;
  if (in.overlap_steps > kFreeOverlapSteps) {
    const double outer_steps = in.overlap_steps / h;
    overlap = outer_steps <= 1 ? kEagerOneOuterStep * outer_steps
                               : kEagerOneOuterStep + (kEagerTwoOuterSteps - kEagerOneOuterStep) * (outer_steps - 1);
    if (outer_steps > 2) c.warnings |= bit(Warning::diloco_overlap_beyond_data);
  }
  c.loss_increase = replica + cadence + overlap;
  c.token_efficiency = std::min(1.0, std::pow(1.0 + c.loss_increase, 2.0 / kAlphaDp));
  if (in.replicas > kMaxReplicas) c.warnings |= bit(Warning::diloco_replicas_beyond_data);
  if (in.parameters < kMinParameters || in.parameters > kMaxParameters)
    c.warnings |= bit(Warning::diloco_size_beyond_data);
  if (in.inner_steps > kMaxInnerSteps) c.warnings |= bit(Warning::diloco_inner_steps_beyond_data);
  if (tokens_per_parameter > kMaxTokensPerParameter) c.warnings |= bit(Warning::diloco_tokens_beyond_data);
  if (in.fragments > 1 && in.layers > 0 && in.layers < kMinLayersPerFragment * in.fragments)
    c.warnings |= bit(Warning::diloco_fragments_beyond_data);
  return c;
}

}  // namespace shardmeter::model
