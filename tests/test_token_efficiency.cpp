// The batch term of token efficiency (docs/model.md §9.7) and the one token efficiency of synchronous and DiLoCo
// plans (§9.8), with values worked out by hand in the comments.
#include <catch2/catch.hpp>

#include "model/job/batch_efficiency.hpp"
#include "model/job/diloco.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/job/evaluate.hpp"
#include "model/kernels/parameters.hpp"
#include "model/job/token_efficiency.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter;

TEST_CASE("Batch efficiency: Kaplan's noise scale, DeepSeek's optimal batch, McCandlish's trade-off", "[tokens]") {
  // N = 1e9, D = 20e9 (Chinchilla): (N_c/N)^(0.076/0.095) = 88000^0.8 = 9027.9; D_c/D = 5.4e13/2e10 = 2700;
  // L = 11727.9^0.095 = e^(0.095 x 9.3697) = 2.4354 nats; B_noise = 2e8 / L^(1/0.21) = 2e8 / 69.317 = 2.8853 M tokens.
  // C = 6 N D = 1.2e20; B_opt = 0.2920 x e^(0.3271 x ln 1.2e20 = 15.1231) = 0.2920 x 3.6974e6 = 1.0797 M tokens.
  const model::BatchEfficiency at_1m = model::batch_efficiency({1e9, 1048576, 20e9});
  CHECK(at_1m.loss_nats == Approx(2.43543).epsilon(1e-4));
  CHECK(at_1m.noise_batch_tokens == Approx(2.88531e6).epsilon(1e-4));
  CHECK(at_1m.optimal_batch_tokens == Approx(1.07965e6).epsilon(1e-4));
  CHECK(at_1m.token_efficiency == 1.0);   // 1.05M <= B_opt: the budget's own batch
  // B = 4 Mi tokens: (1 + 1.0797/2.8853) / (1 + 4.1943/2.8853) = 1.37419 / 2.45368 = 0.56006.
  const model::BatchEfficiency at_4m = model::batch_efficiency({1e9, 4194304, 20e9});
  CHECK(at_4m.token_efficiency == Approx(0.56005).epsilon(1e-4));
  // 1B parameters, 1.2e20 FLOPs: inside Kaplan's 1.5B and DeepSeek's 3e20 FLOPs: no warning.
  CHECK(at_4m.warnings == 0);
  // No budget: D = 20 N (the same as above).
  CHECK(model::batch_efficiency({1e9, 4194304, 0}).token_efficiency == Approx(0.56005).epsilon(1e-4));
}

TEST_CASE("Batch efficiency: Llama-3-70B at 15 T tokens, Meta's 16M batch and a 134M batch", "[tokens]") {
  // N = 70e9, D = 15e12: (8.8e13/7e10)^0.8 = 1257.14^0.8 = 301.65; D_c/D = 3.6; L = 305.25^0.095 = 1.72204;
  // B_noise = 2e8 / 1.72204^4.7619 = 2e8 / 13.305 = 15.032 M; C = 6.3e24, B_opt = 0.2920 x 6.3e24^0.3271 = 37.779 M.
  const model::BatchEfficiency meta = model::batch_efficiency({70e9, 16777216, 15e12});
  CHECK(meta.noise_batch_tokens == Approx(15.032e6).epsilon(1e-3));
  CHECK(meta.optimal_batch_tokens == Approx(37.779e6).epsilon(1e-3));
  CHECK(meta.token_efficiency >= 0.95);   // 16.8M <= B_opt: 1
  CHECK(meta.warnings == 0);              // no penalty, nothing extrapolated
  // 134M: (1 + 37.779/15.032) / (1 + 134.218/15.032) = 3.51324 / 9.92883 = 0.35384.
  const model::BatchEfficiency big = model::batch_efficiency({70e9, 134217728, 15e12});
  CHECK(big.token_efficiency == Approx(0.35384).epsilon(1e-3));
  // The penalty applies at 70B and 6.3e24 FLOPs, far beyond the fitted data: warned.
  CHECK(big.warnings == model::bit(model::Warning::batch_beyond_data));
}

TEST_CASE("Batch efficiency never rises with the batch, never exceeds 1", "[tokens][property]") {
  for (const double n : {1e8, 1e9, 8e9, 70e9, 400e9})
    for (const double d : {0.0, 2e10, 1e12, 15e12}) {
      double last = 1.0;
      for (double b = 65536; b < 1e9; b *= 2) {
        const double e = model::batch_efficiency({n, b, d}).token_efficiency;
        CHECK(e <= 1.0);
        CHECK(e <= last);
        last = e;
      }
    }
}

namespace {
// Four islands of 64 H100s training Llama-3-8B on a 1 T-token budget, 4096 sequences of 4096 tokens a step.
model::Scenario four_islands(model::SyncMode sync) {
  model::Scenario s{};
  s.model = test::llama3_8b();
  s.model.seq_len = 4096;
  s.training.global_batch = 4096;
  s.training.micro_batch = 2;
  s.training.tokens = 1e12;
  s.cluster.islands[0] = test::island(test::h100_sxm(), 64, 3200);
  s.cluster.islands[0].count = 4;
  s.cluster.island_entries = 1;
  s.cluster.wan.bytes_per_s = 100e9 / 8;
  s.cluster.wan.efficiency = 0.7;
  s.cluster.wan.latency_s = 0.03;
  s.cluster.has_wan = true;
  s.plan.sharding = model::Sharding::hsdp;
  s.plan.recompute = model::Recompute::full;
  s.plan.sync = sync;
  s.plan.diloco.inner_steps = 100;
  return s;
}
}  // namespace

TEST_CASE("One token efficiency: a synchronous and a DiLoCo plan on the same effective tokens", "[tokens]") {
  const model::ParameterCounts p = model::count_parameters(test::llama3_8b());
  // Llama-3-8B: 32 x (2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + 2 x 4096) + 4096 = 6,979,588,096
  // non-embedding parameters (8,030,261,248 with the untied 128256 x 4096 embedding and head).
  CHECK(model::non_embedding_parameters(p) == Approx(6979588096.0));
  CHECK(p.total == Approx(8030261248.0));

  // N = 6.9796e9, D = 1e12: L = 2.05495, B_noise = 6.4789 M, B_opt = 0.2920 x (4.1878e22)^0.3271 = 7.3288 M tokens.
  // Synchronous: one optimizer sees 4096 x 4096 = 16.777 M tokens:
  //   batch = (1 + 7.3288/6.4789) / (1 + 16.777/6.4789) = 2.13118 / 3.58949 = 0.59372; DiLoCo term 1.
  const model::Scenario sync = four_islands(model::SyncMode::synchronous);
  const model::TokenEfficiency ts = model::token_efficiency(sync, p, 1);
  CHECK(ts.batch == Approx(0.59372).epsilon(1e-3));
  CHECK(ts.diloco == 1.0);
  CHECK(ts.token_efficiency == Approx(0.59372).epsilon(1e-3));

  // DiLoCo, M = 4, H = 100: each replica's optimizer sees 16.777 M / 4 = 4.194 M tokens <= B_opt: batch term 1.
  // Convergence (§9.4), N = 8.0303e9, D/N = 124.53: replica 0.00352 x 3^0.8 x 8.0303^-0.28 = 0.00352 x 2.40822 x
  // 0.55805 = 0.0047306; cadence 0.00393 x 3^0.447 x log2(100/30) x (20/124.53)^0.5 = 0.00393 x 1.63408 x 1.73697 x
  // 0.40076 = 0.0044703; r = 0.0092009; E = 1.0092009^(2/-0.0953) = 0.82513.
  const model::Scenario diloco = four_islands(model::SyncMode::diloco);
  const model::TokenEfficiency td = model::token_efficiency(diloco, p, 4);
  CHECK(td.optimizer_batch_tokens == Approx(4194304.0));
  CHECK(td.batch == 1.0);
  CHECK(td.diloco == Approx(0.82513).epsilon(1e-3));
  CHECK(td.token_efficiency == Approx(0.82513).epsilon(1e-3));

  // The estimate carries the same product and multiplies it into effective tokens/s and the trained tokens.
  for (const model::Scenario& s : {sync, diloco}) {
    const model::Estimate e = model::evaluate(s);
    const model::TokenEfficiency t = model::token_efficiency(s, p, s.plan.sync == model::SyncMode::diloco ? 4 : 1);
    CHECK(e.token_efficiency == Approx(t.token_efficiency));
    CHECK(e.batch_efficiency == Approx(t.batch));
    CHECK(e.effective_tokens_per_s == Approx(e.tokens_per_s * t.token_efficiency));
    CHECK(e.trained_tokens == Approx(1e12 / t.token_efficiency));
  }
}
