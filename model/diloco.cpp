#include "model/diloco.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "model/overlap.hpp"

namespace shardmeter::model {

namespace {

// Compute-equivalent factor of DiLoCo vs data parallelism, Charles et al. 2025 Tables 4/5 (H = 30), derived in
// scenarios/validation/README.md. Rows: model size; columns: M = 2, 4, 8 (M = 8 not run at 4B/10B: extrapolated
// with the 2.4B ratio M8/M4).
constexpr std::array<double, 9> kSizes = {35e6, 90e6, 180e6, 335e6, 550e6, 1.3e9, 2.4e9, 4e9, 10e9};
constexpr std::array<std::array<double, 3>, 9> kFactor = {{
    {0.871, 0.663, 0.448},
    {0.906, 0.739, 0.528},
    {0.951, 0.803, 0.616},
    {0.970, 0.835, 0.654},
    {0.969, 0.854, 0.703},
    {0.966, 0.903, 0.756},
    {1.027, 0.947, 0.799},
    {1.039, 0.945, 0.797},
    {1.041, 0.942, 0.795},
}};

double interpolate_size(double parameters, std::size_t column) {
  const double n = std::clamp(parameters, kSizes.front(), kSizes.back());
  std::size_t i = 0;
  while (i + 2 < kSizes.size() && n > kSizes[i + 1]) ++i;
  const double t = std::log(n / kSizes[i]) / std::log(kSizes[i + 1] / kSizes[i]);
  return kFactor[i][column] + t * (kFactor[i + 1][column] - kFactor[i][column]);
}

}  // namespace

OuterSync outer_sync(double parameters, const DilocoSpec& d, const WanRing& ring, double t) noexcept {
  OuterSync o;
  o.payload_bytes = parameters * d.outer_bits / 8.0;
  o.wan_bytes = wan_all_reduce_bytes(o.payload_bytes, ring);
  const double fragments = std::max(1, d.fragments);
  o.fragment_sync_s = wan_all_reduce_s(o.payload_bytes / fragments, ring);
  const double per_fragment = std::max(0.0, o.fragment_sync_s - kOverlapEfficiency * d.overlap_steps * t);
  const double link_bound = fragments * o.fragment_sync_s - kOverlapEfficiency * d.inner_steps * t;
  o.exposed_s = d.overlap_steps > 0 ? std::max(fragments * per_fragment, link_bound) : fragments * o.fragment_sync_s;
  return o;
}

double diloco_reduction(const DilocoSpec& d, int grad_reduce_bytes) noexcept {
  return d.inner_steps * (8.0 * grad_reduce_bytes) / d.outer_bits;
}

double diloco_token_efficiency(const DilocoSpec& d, int replicas, double parameters) noexcept {
  if (d.token_efficiency >= 0) return d.token_efficiency;
  double factor = 1.0;
  if (replicas >= 2) {
    // Interpolate in log M between the M = 2, 4, 8 columns (M = 1 counts as 1.0); beyond 8, hold the M = 8 slope.
    const double log_m = std::log2(static_cast<double>(replicas));
    const std::array<double, 4> at = {1.0, interpolate_size(parameters, 0), interpolate_size(parameters, 1),
                                      interpolate_size(parameters, 2)};
    const double x = std::min(log_m, 3.0);
    const auto k = static_cast<std::size_t>(std::min(2.0, std::floor(x)));
    factor = at[k] + (x - static_cast<double>(k)) * (at[k + 1] - at[k]);
    if (log_m > 3.0) factor *= std::pow(at[3] / at[2], log_m - 3.0);
  }
  factor = std::min(factor, 1.0);
  const double doublings = std::max(0.0, std::log2(std::max(1, d.inner_steps) / 30.0));
  return factor * std::pow(1.0 - d.efficiency_loss_per_h_doubling, doublings);
}

}  // namespace shardmeter::model
