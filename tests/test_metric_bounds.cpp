// Optimistic metric bounds (model/job/metric_bounds.hpp, docs/model.md §16): a hand-worked peak token rate, and the
// property the search relies on: no plan of the cluster and model gets past them.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/parallel/consistency.hpp"
#include "model/job/evaluate.hpp"
#include "model/job/metric_bounds.hpp"
#include "model/spec/metrics.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter;

namespace {

// A small dense GPT: 2 blocks, h = 1024, 8 heads of 128, GELU MLP of 4096, vocab 32000, 2048 tokens, on 8 GPUs of
// 1 PFLOP/s (no fp8) at $2 per GPU-hour, 1e9 training tokens.
model::Scenario tiny() {
  model::Scenario s = test::gpt3_on_a100(8, 1, 1);
  s.model.layers = 2;
  s.model.hidden = 1024;
  s.model.heads = 8;
  s.model.kv_heads = 8;
  s.model.head_dim = 128;
  s.model.ffn_hidden = 4096;
  s.model.vocab = 32000;
  s.model.seq_len = 2048;
  s.model.ffn_type = model::FfnType::gelu;
  s.model.bias = false;
  s.cluster.islands[0].gpu.peak_flops_per_s = 1e15;
  s.cluster.islands[0].gpu.peak_fp8_flops_per_s = 0;
  s.cluster.islands[0].price_usd_per_gpu_hour = 2.0;
  s.cluster.islands[0].spot = false;
  s.training.tokens = 1e9;
  s.training.global_batch = 64;
  s.plan.tp = 1;
  s.plan.pp = 1;
  s.plan.sequence_parallel = false;
  return s;
}

}  // namespace

TEST_CASE("the peak token rate and the cost bounds of a small GPT, by hand", "[metric_bounds]") {
  const model::Scenario s = tiny();
  // Per sequence (s = 2048): block matmuls 2 s (4h^2 + 2hf) = 2*2048*12,582,912 = 51,539,607,552; causal attention
  // 0.5 * 4 s^2 (a d) = 8,589,934,592; logits 2 s h V = 134,217,728,000. Forward + backward:
  // 3 * (2 * (51,539,607,552 + 8,589,934,592) + 134,217,728,000) = 763,430,436,864 FLOPs.
  // 8 GPUs * 1e15 FLOP/s (efficiencies below 1, no fp8) * 2048 tokens / 763,430,436,864 = 21,461,025.4 tokens/s.
  const double peak = model::max_tokens_per_s(s);
  CHECK(peak == Approx(21461025.4).epsilon(1e-8));
  CHECK(model::metric_bound(model::metric("tokens_per_s"), s).upper == Approx(21461025.4).epsilon(1e-8));
  CHECK(model::metric_bound(model::metric("tokens_per_s_per_gpu"), s).upper == Approx(21461025.4 / 8).epsilon(1e-8));
  // Cost per hour is exact: 8 * $2 = $16. Wall clock >= 1e9 / 21,461,025.4 = 46.596 s = 5.3931e-4 days;
  // total cost >= 16 * 46.596 / 3600 = $0.207094; per million tokens >= 16 / (21,461,025.4 * 3600) * 1e6 = $0.000207094.
  const model::MetricBound per_hour = model::metric_bound(model::metric("cost_usd_per_hour"), s);
  CHECK(per_hour.lower == 16.0);
  CHECK(per_hour.upper == 16.0);
  CHECK(model::metric_bound(model::metric("gpus"), s).lower == 8.0);
  CHECK(model::metric_bound(model::metric("wall_clock_days"), s).lower == Approx(46.596 / 86400).epsilon(1e-4));
  CHECK(model::metric_bound(model::metric("total_cost_usd"), s).lower == Approx(0.207094).epsilon(1e-5));
  CHECK(model::metric_bound(model::metric("cost_usd_per_million_tokens"), s).lower == Approx(0.000207094).epsilon(1e-5));
  // Metrics without a proven bound stay unbounded on both sides.
  const model::MetricBound mfu = model::metric_bound(model::metric("mfu"), s);
  CHECK(std::isinf(mfu.lower));
  CHECK(std::isinf(mfu.upper));
}

TEST_CASE("an fp8 peak raises the bound; MoE models get none", "[metric_bounds]") {
  model::Scenario s = tiny();
  const double bf16 = model::max_tokens_per_s(s);
  s.cluster.islands[0].gpu.peak_fp8_flops_per_s = 2e15;
  CHECK(model::max_tokens_per_s(s) == bf16);  // bf16 GEMMs never run at the fp8 peak
  s.training.precision = model::Precision::fp8;
  CHECK(model::max_tokens_per_s(s) == Approx(2 * bf16));
  s.model.moe.experts = 8;
  s.model.moe.top_k = 2;
  s.model.moe.expert_ffn_hidden = 4096;
  CHECK(std::isinf(model::max_tokens_per_s(s)));
  CHECK(std::isinf(model::metric_bound(model::metric("total_cost_usd"), s).lower));
}

TEST_CASE("no plan gets past the bounds of its cluster and model", "[metric_bounds][property]") {
  // Plans of three models over layouts, batches, recompute, attention kernels, precision and overlap flags; every
  // consistent estimate (out-of-memory ones included: their times are computed too) must lie inside every bound.
  const model::Scenario bases[] = {tiny(), test::gpt3_on_a100(1536, 8, 12), test::llama8b_fsdp(test::h100_sxm(), 64)};
  int checked = 0;
  for (model::Scenario base : bases) {
    base.cluster.islands[0].gpu.peak_fp8_flops_per_s = 2 * base.cluster.islands[0].gpu.peak_flops_per_s;
    for (int tp : {1, 2, 8})
      for (int pp : {1, 2, 4})
        for (int mb : {1, 2})
          for (auto recompute : {model::Recompute::none, model::Recompute::selective, model::Recompute::full})
            for (auto attention : {model::AttentionKernel::flash, model::AttentionKernel::standard})
              for (auto precision : {model::Precision::bf16, model::Precision::fp8})
                for (auto sharding : {model::Sharding::none, model::Sharding::zero1, model::Sharding::fsdp}) {
                  model::Scenario s = base;
                  s.plan.tp = tp;
                  s.plan.pp = pp;
                  s.plan.sequence_parallel = tp > 1;
                  s.training.micro_batch = mb;
                  s.plan.recompute = recompute;
                  s.plan.attention = attention;
                  s.training.precision = precision;
                  s.plan.sharding = sharding;
                  s.plan.tp_comm_overlap = tp > 1 && mb == 2;
                  if (model::check_consistency(s)) continue;
                  const model::Estimate e = model::evaluate(s);
                  ++checked;
                  for (const model::Metric& metric : model::metrics()) {
                    const model::MetricBound b = model::metric_bound(metric, s);
                    const double v = metric.get(e);
                    INFO(metric.name << " = " << v << " in [" << b.lower << ", " << b.upper << "], tp " << tp << " pp "
                                     << pp << " mb " << mb);
                    CHECK(v >= b.lower);
                    CHECK(v <= b.upper);
                  }
                }
  }
  CHECK(checked > 200);
}
