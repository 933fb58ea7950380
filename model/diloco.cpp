#include "model/diloco.hpp"

#include <algorithm>
#include <cmath>

#include "model/overlap.hpp"

namespace shardmeter::model {

namespace {
// Default token-efficiency fit; see diloco_token_efficiency.
constexpr double kEfficiencyA = 0.0;
constexpr double kEfficiencyB = 1.0;
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

double diloco_token_efficiency(const DilocoSpec& d, int replicas) noexcept {
  const double a = d.efficiency_a >= 0 ? d.efficiency_a : kEfficiencyA;
  const double b = d.efficiency_b >= 0 ? d.efficiency_b : kEfficiencyB;
  if (replicas <= 1) return 1.0;
  return 1.0 / (1.0 + a * std::log(std::max(1, d.inner_steps)) * std::pow(replicas - 1.0, b));
}

}  // namespace shardmeter::model
