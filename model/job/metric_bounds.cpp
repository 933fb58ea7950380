#include "model/job/metric_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "model/kernels/flops.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/kernels/parameters.hpp"
#include "model/spec/units.hpp"

namespace shardmeter::model {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The bounds are loosened by this relative margin so that rounding in evaluate() can never cross them.
constexpr double kMargin = 1e-9;

// The highest FLOP rate a GPU's kernels reach in the model (model/kernels/kernel_time.cpp, model/step/layer_cost.cpp): GEMMs run
// at peak * gemm_efficiency * tile efficiency (fp8: the fp8 peak at a lower efficiency), flash attention at
// peak * attention_efficiency; tile efficiency is at most 1 when gemm_half_dim >= 0. 0 when not provable.
double fastest_flops_per_s(const GpuSpec& g, Precision precision) noexcept {
  if (!(g.gemm_half_dim >= 0) || !(g.kernel_overhead_s >= 0) || !(g.peak_flops_per_s > 0)) return 0.0;
  // Only fp8 GEMMs run at the fp8 peak (model/kernels/kernel_time.cpp); attention always at the bf16 peak.
  const double peak = precision == Precision::fp8 ? std::max(g.peak_flops_per_s, g.peak_fp8_flops_per_s) : g.peak_flops_per_s;
  return peak * std::max({1.0, g.gemm_efficiency, g.attention_efficiency});
}

// Cost per hour exactly as model::evaluate sums it (model/job/evaluate.cpp).
double cost_usd_per_hour(const ClusterSpec& c) noexcept {
  double cost = 0;
  for (int i = 0; i < c.island_entries; ++i) {
    const IslandSpec& island = c.islands[static_cast<std::size_t>(i)];
    cost += island.total_gpus() * (island.spot ? island.gpu.spot_price_usd_per_gpu_hour : island.price_usd_per_gpu_hour);
  }
  return cost;
}

}  // namespace

ByteRanges metric_bound_bytes() noexcept {
  ByteRanges r;
  r.add(ByteRange{offsetof(Scenario, model), sizeof(ModelSpec)});
  r.add(ByteRange{offsetof(Scenario, cluster), sizeof(ClusterSpec)});
  r.add(ByteRange{offsetof(Scenario, training) + offsetof(TrainingSpec, tokens), sizeof(TrainingSpec::tokens)});
  r.add(ByteRange{offsetof(Scenario, training) + offsetof(TrainingSpec, precision), sizeof(TrainingSpec::precision)});
  return r;
}

double max_tokens_per_s(const Scenario& s) noexcept {
  const ModelSpec& m = s.model;
  if (is_moe(m) || m.layers <= 0 || m.seq_len <= 0) return kInf;  // MoE: not proven (§16.1)
  // FLOPs per sequence every plan executes at least: forward + backward of the blocks and the output layer;
  // multi-token prediction left out (a smaller count keeps the bound optimistic).
  const FlopCounts f = count_flops(m, Recompute::none);
  const double flops = 3.0 * (m.layers * (f.layer_matmul_fwd + f.attention_fwd) + f.logits_fwd);
  if (!(flops > 0)) return kInf;
  double rate = 0;  // FLOP/s of the whole job at its fastest
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const IslandSpec& island = s.cluster.islands[static_cast<std::size_t>(i)];
    const double fastest = fastest_flops_per_s(island.gpu, s.training.precision);
    if (!(fastest > 0)) return kInf;
    rate += island.total_gpus() * fastest;
  }
  return rate * m.seq_len / flops * (1.0 + kMargin);
}

MetricBound metric_bound(const Metric& metric, const Scenario& s) noexcept {
  MetricBound b;
  const double gpus = static_cast<double>(s.cluster.total_gpus());
  const std::string_view name = metric.name;
  if (name == "gpus") return {gpus, gpus};
  const double per_hour = cost_usd_per_hour(s.cluster);
  if (name == "cost_usd_per_hour") return {per_hour, per_hour};  // summed as evaluate() sums it: the same value

  const double peak_tokens_per_s = max_tokens_per_s(s);
  if (!std::isfinite(peak_tokens_per_s) || !(gpus > 0)) return b;
  // tokens_per_s <= peak; effective tokens are fewer (token_efficiency <= 1, §9.4).
  if (name == "tokens_per_s" || name == "effective_tokens_per_s") b.upper = peak_tokens_per_s;
  if (name == "tokens_per_s_per_gpu") b.upper = peak_tokens_per_s / gpus;

  // With a positive token budget: trained tokens >= the budget (token_efficiency <= 1), goodput <= 1, egress >= 0,
  // so the wall clock is at least budget / peak, and GPU cost and total cost at least the hourly cost times it.
  const double tokens = s.training.tokens;
  if (!(tokens > 0) || !(per_hour >= 0)) return b;
  const double wall_s = tokens / peak_tokens_per_s * (1.0 - kMargin);
  if (name == "wall_clock_days") b.lower = wall_s / kSecondsPerDay;
  if (name == "gpu_usd_total" || name == "total_cost_usd") b.lower = per_hour * wall_s / kSecondsPerHour;
  // Per million trained (or loss-equivalent) tokens: cost per hour over tokens per hour at the peak.
  if (name == "cost_usd_per_million_tokens" || name == "cost_usd_per_effective_million_tokens")
    b.lower = per_hour / (peak_tokens_per_s * kSecondsPerHour) * 1e6 * (1.0 - kMargin);
  return b;
}

}  // namespace shardmeter::model
