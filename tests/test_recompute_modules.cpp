// Megatron's selective recompute modules, plan.recompute_modules (docs/model.md §7.11): what each saves, what it
// re-runs, the scenario key and the exports.
#include <catch2/catch.hpp>

#include <string>

#include "catalog_fixture.hpp"
#include "tiny_mla_fixture.hpp"
#include "model/job/evaluate.hpp"
#include "model/kernels/kernel_time.hpp"
#include "model/step/layer_cost.hpp"
#include "model/parallel/layout.hpp"
#include "model/memory/memory.hpp"
#include "model/memory/moe_memory.hpp"
#include "model_fixtures.hpp"
#include "small_block_fixture.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter;
using namespace shardmeter::model;

namespace {

model::Scenario parse(const std::string& plan) {
  const cli::ScenarioDocument doc = cli::scenario_document_from_text(
      "recompute-modules-test", "{name: t, model: {preset: llama3-8b}, training: {global_batch: 8}, "
                                "cluster: {islands: [{gpu: h100-sxm, gpus: 8}]}, plan: " + plan + "}");
  return cli::parse_scenario(doc, test::shipped_catalog());
}

}  // namespace

TEST_CASE("recompute_modules: layernorm drops the norm outputs, mlp the MLP's inside (§7.11)") {
  const ModelSpec m = test::small_block();
  PlanSpec plan;  // selective, core_attn
  const double sbh = 1048576.0, lse = 32768.0;  // sbh = 1 x 1024 x 1024; LSE 4 x 8 heads x 1024
  // Default: replicated 2 + 2 + 4 = 8, split Q 2 + K, V 4 + attention output 2 + SwiGLU 6 x 4 = 32: 40 sbh.
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(40.0 * sbh + lse));
  plan.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::layernorm});
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(36.0 * sbh + lse));  // the two norm outputs, 2 + 2
  plan.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::mlp});
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(16.0 * sbh + lse));  // 40 - 24 (gate, up, product)
  plan.recompute_modules =
      test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::mlp, RecomputeModule::layernorm});
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(12.0 * sbh + lse));
  // t = 2 with SP: replicated (8 - 4) / 2 = 2, split 32 / 2 = 16: 18 sbh; the LSE halves.
  plan.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::layernorm});
  plan.tp = 2;
  plan.sequence_parallel = true;
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(18.0 * sbh + lse / 2));
  // mla_up_proj on a model without MLA changes nothing.
  plan.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::mla_up_proj});
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(20.0 * sbh + lse / 2));
  // The bits apply to recompute: selective only.
  PlanSpec none;
  none.recompute = Recompute::none;
  const double kept = layer_activation_bytes(m, none, 1);
  none.recompute_modules = test::recompute_bits({RecomputeModule::layernorm, RecomputeModule::mlp});
  CHECK(layer_activation_bytes(m, none, 1) == kept);
}

TEST_CASE("recompute_modules without core_attn: standard attention keeps its score matrix (§7.11)") {
  const ModelSpec m = test::small_block();
  PlanSpec plan;
  plan.attention = AttentionKernel::standard;
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(40.0 * 1048576.0));
  plan.recompute_modules = test::recompute_bits({RecomputeModule::layernorm});
  // 36 sbh + softmax output 2 x a s^2 b = 2 x 8 x 1024 x 1024 = 16,777,216 (no dropout).
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(36.0 * 1048576.0 + 16777216.0));
}

TEST_CASE("recompute_modules: mla_up_proj drops Q, K and V; shared_experts the shared experts' inside (§7.11)") {
  const ModelSpec m = test::tiny_moe_mla();
  PlanSpec plan;
  const double base = layer_activation_bytes(m, plan, 2);
  plan.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::mla_up_proj});
  // sbh = 2 x 16 x 8 = 256; MLA's Q and K of d + d_r = 6, V of d_v = 3 per head, 2 heads: 2 x 30 / 8 = 7.5 sbh
  // = 1,920 bytes (docs/model.md §7.13).
  CHECK(base - layer_activation_bytes(m, plan, 2) == Approx(1920.0));
  PlanSpec shared;
  const double with_shared = moe_extra_activation_bytes(m, shared, 2);
  shared.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::shared_experts});
  // 32 tokens x 1 shared expert x width 6 x 6 bytes (SwiGLU gate, up, product) x 3 MoE blocks of 4 = 864 bytes.
  CHECK(with_shared - moe_extra_activation_bytes(m, shared, 2) == Approx(864.0));
}

TEST_CASE("recompute_modules: mlp re-runs the MLP's two matmuls and its activation (§7.11)") {
  const ModelSpec m = test::small_block();
  const GpuSpec gpu = test::h100_sxm();
  PlanSpec plan;
  const IslandLayout l = make_layout(test::island(gpu, 8), plan);
  const LayerCost base = layer_cost(m, gpu, plan, Precision::bf16, 1, l);
  CHECK(base.recompute.gemm_s == 0.0);  // flash: core_attn adds nothing
  plan.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::mlp});
  const LayerCost c = layer_cost(m, gpu, plan, Precision::bf16, 1, l);
  // Up (gate and up, 1024 tokens x 8192 x 1024) and down (1024 x 1024 x 4096); SwiGLU reads 2f, writes f.
  CHECK(c.recompute.gemm_s == Approx(gemm_time_s(1024, 8192, 1024, gpu, Precision::bf16) +
                                     gemm_time_s(1024, 1024, 4096, gpu, Precision::bf16)));
  CHECK(c.recompute.memory_s == Approx(memory_bound_time_s(3.0 * 2.0 * 1024 * 4096, 1.0, gpu)));
  plan.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::layernorm});
  const LayerCost n = layer_cost(m, gpu, plan, Precision::bf16, 1, l);
  // Two norms, each reading and writing 1024 x 1024 16-bit elements.
  CHECK(n.recompute.memory_s == Approx(memory_bound_time_s(2.0 * 2.0 * 2.0 * 1024 * 1024, 2.0, gpu)));
}

TEST_CASE("recompute_modules property: another module never more memory, never less recompute time (§7.11)") {
  for (const Precision precision : {Precision::bf16, Precision::fp8}) {
    for (const bool moe : {false, true}) {
      Scenario s = test::llama8b_fsdp(test::h100_sxm(), 8, 2);
      s.training.precision = precision;
      s.plan.stack = Stack::megatron_te;
      s.plan.sharding = Sharding::zero1;
      s.plan.tp = 2;
      s.plan.sequence_parallel = true;
      if (moe) {
        s.model = test::tiny_moe_mla();
        s.model.hidden = 256; s.model.heads = 4; s.model.kv_heads = 4; s.model.head_dim = 64;
        s.model.ffn_hidden = 512; s.model.moe.expert_ffn_hidden = 128; s.model.moe.shared_expert_ffn_hidden = 128;
        s.model.seq_len = 512; s.model.vocab = 1024;
        s.training.global_batch = 16;
      }
      for (unsigned set = 0; set < (1u << kRecomputeModuleCount); ++set) {
        Scenario a = s;
        a.plan.recompute_modules = set;
        const Estimate ea = evaluate(a);
        for (int k = 0; k < kRecomputeModuleCount; ++k) {
          if ((set >> k) & 1u) continue;
          // moe_act and moe are carried by plan.moe_recompute (the parser sets it from the bits).
          if (k == static_cast<int>(RecomputeModule::moe_act) || k == static_cast<int>(RecomputeModule::moe)) continue;
          Scenario b = a;
          b.plan.recompute_modules = set | (1u << k);
          const Estimate eb = evaluate(b);
          INFO("precision " << static_cast<int>(precision) << " moe " << moe << " set " << set << " + module " << k);
          CHECK(eb.memory.activations_bytes <= ea.memory.activations_bytes * (1 + 1e-12));
          CHECK(eb.time.recompute_s >= ea.time.recompute_s * (1 - 1e-12));
        }
      }
    }
  }
}

TEST_CASE("plan.recompute_modules: Megatron's names into the bit set, moe modules into moe_recompute") {
  const Scenario s = parse("{recompute_modules: 'core_attn layernorm, mla_up_proj moe_act'}");
  CHECK(s.plan.recompute_modules == test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::layernorm,
                                          RecomputeModule::mla_up_proj, RecomputeModule::moe_act}));
  CHECK(s.plan.moe_recompute == MoeRecompute::activation);
  CHECK(parse("{}").plan.recompute_modules == test::recompute_bits({RecomputeModule::core_attn}));
  CHECK(parse("{moe_recompute: layer}").plan.recompute_modules ==
        test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::moe}));
  CHECK_THROWS_WITH(parse("{recompute_modules: 'core_attn norm'}"),
                    Catch::Contains("plan.recompute_modules") && Catch::Contains("'norm'"));
  CHECK_THROWS_WITH(parse("{recompute: full, recompute_modules: mlp}"),
                    Catch::Contains("plan.recompute_modules") && Catch::Contains("selective"));
  CHECK_THROWS_WITH(parse("{recompute_modules: moe, moe_recompute: activation}"),
                    Catch::Contains("plan.moe_recompute is activation"));
}
