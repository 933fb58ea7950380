// DeepSeek-V3's memory switches (issue 29): MLA's saved tensors (docs/model.md §7.13), DualPipe (§5.8), the fp8 /
// E5M6 activation cache (§7.12), and the published H800 layout (scenarios/deepseek-v3-h800.yaml).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "catalog_fixture.hpp"
#include "tiny_mla_fixture.hpp"
#include "model/parallel/consistency.hpp"
#include "model/parallel/dualpipe.hpp"
#include "model/job/evaluate.hpp"
#include "model/parallel/fp8.hpp"
#include "model/memory/fp8_activation_cache.hpp"
#include "model/memory/memory.hpp"
#include "model/memory/mla_memory.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter;
using namespace shardmeter::model;

namespace {

ModelSpec deepseek_v3_block() {
  ModelSpec s;
  s.layers = 61; s.hidden = 7168; s.heads = 128; s.kv_heads = 128; s.head_dim = 128; s.ffn_hidden = 18432;
  s.vocab = 129280; s.seq_len = 4096;
  s.ffn_type = FfnType::swiglu; s.norm = NormType::rmsnorm; s.dropout = false; s.bias = false;
  s.mla.q_lora_rank = 1536; s.mla.kv_lora_rank = 512; s.mla.rope_head_dim = 64; s.mla.v_head_dim = 128;
  return s;
}

model::Scenario parse(const std::string& training, const std::string& plan) {
  const cli::ScenarioDocument doc = cli::scenario_document_from_text(
      "deepseek-test", "{name: t, model: {preset: llama3-8b}, training: {global_batch: 64" + training +
                           "}, cluster: {islands: [{gpu: h100-sxm, gpus: 16}]}, plan: " + plan + "}");
  return cli::parse_scenario(doc, test::shipped_catalog());
}

}  // namespace

TEST_CASE("MLA saves its latents, Q and K of d + d_r, V of d_v and the output (§7.13)") {
  const ModelSpec m = deepseek_v3_block();
  PlanSpec plan;  // selective, core_attn, TP 1
  const MlaSavedSbh saved = mla_saved_sbh(m, plan);
  // Latents 2 x (2 x 1536 + (512 + 64) + 512) / 7168 = 2 x 4160 / 7168 = 1.160714.
  CHECK(saved.latents == Approx(1.160714).epsilon(1e-6));
  // Q and K 128 x 192 each, V 128 x 128: 2 x 65,536 / 7168 = 18.285714 (the GQA form counted 6).
  CHECK(saved.qkv == Approx(18.285714).epsilon(1e-6));
  // Output 128 x 128: 2 x 16,384 / 7168 = 4.571429 (the GQA form counted 2).
  CHECK(saved.attention_out == Approx(4.571429).epsilon(1e-6));
  // TP 2 splits the heads, not the latents (the down-projections are duplicated).
  plan.tp = 2;
  CHECK(mla_saved_sbh(m, plan).qkv == Approx(9.142857).epsilon(1e-6));
  CHECK(mla_saved_sbh(m, plan).attention_out == Approx(2.285714).epsilon(1e-6));
  CHECK(mla_saved_sbh(m, plan).latents == Approx(1.160714).epsilon(1e-6));
  // mla_up_proj discards Q, K and V.
  plan.recompute_modules = test::recompute_bits({RecomputeModule::core_attn, RecomputeModule::mla_up_proj});
  CHECK(mla_saved_sbh(m, plan).qkv == 0.0);
  // Without MLA: nothing.
  ModelSpec gqa = m;
  gqa.mla = {};
  CHECK(mla_saved_sbh(gqa, PlanSpec{}).latents == 0.0);
}

TEST_CASE("An MLA block's activations with the MLA terms, by hand (§7.3, §7.13)") {
  const ModelSpec m = test::tiny_moe_mla();
  PlanSpec plan;  // selective, core_attn, flash, TP 1
  // sbh = 2 x 16 x 8 = 256. Replicated: norm outputs 4 + norm inputs 4 = 8, latents 2 x (10 + 8 + 6) / 8 = 6.
  // Split: Q and K 2 x 6, V 3 per head, 2 heads: 2 x 30 / 8 = 7.5; output 2 x 2 x 3 / 8 = 1.5; SwiGLU 6 x 16 / 8 = 12.
  // 8 + 6 + 7.5 + 1.5 + 12 = 35 sbh = 8,960 bytes, plus flash's fp32 LSE 4 x 2 heads x 16 x 2 = 256.
  CHECK(layer_activation_bytes(m, plan, 2) == Approx(8960.0 + 256.0));
}

TEST_CASE("fp8 activation cache: E5M6 attention output and fp8 SwiGLU inputs (§7.12)") {
  const ModelSpec m = test::tiny_moe_mla();
  const Fp8Use fp8 = fp8_use(Precision::fp8, Stack::megatron_te);
  PlanSpec plan;
  CHECK(fp8_activation_cache_delta_bytes(m, plan, 2, fp8) == 0.0);  // off
  plan.fp8_activation_cache = true;
  // 32 tokens. Attention output 2 heads x 3: (1.5 - (2 + 1)) x 32 x 6 = -288. SwiGLU inputs of 2 routed copies of
  // width 6, gate and up: -(2 - 1) x 3/4 (MoE share) x 32 x 2 x 2 x 6 = -576. Together -864.
  CHECK(fp8_activation_cache_delta_bytes(m, plan, 2, fp8) == Approx(-864.0));
  // Standard attention keeps only the projection's fp8 copy: (1.5 - 1) x 192 = +96, so -480.
  plan.attention = AttentionKernel::standard;
  CHECK(fp8_activation_cache_delta_bytes(m, plan, 2, fp8) == Approx(96.0 - 576.0));
  plan.attention = AttentionKernel::flash;
  // moe_recompute layer keeps no SwiGLU input; full recompute nothing; bf16 nothing.
  plan.moe_recompute = MoeRecompute::layer;
  CHECK(fp8_activation_cache_delta_bytes(m, plan, 2, fp8) == Approx(-288.0));
  plan.moe_recompute = MoeRecompute::none;
  plan.recompute = Recompute::full;
  CHECK(fp8_activation_cache_delta_bytes(m, plan, 2, fp8) == 0.0);
  plan.recompute = Recompute::selective;
  CHECK(fp8_activation_cache_delta_bytes(m, plan, 2, fp8_use(Precision::bf16, Stack::megatron_te)) == 0.0);
}

TEST_CASE("DualPipe: two stages per rank, pp + 1 chunks in flight, (pp/2 - 1)(F&B + B - 3W) bubble (§5.8)") {
  PlanSpec plan;
  plan.pp = 16;
  plan.pipeline_schedule = PipelineSchedule::dualpipe;
  CHECK(uses_dualpipe(plan));
  StageLayers stages;
  stages.first = 4; stages.middle = 4; stages.last = 4;
  // End rank: stages 0 and 15, 8 blocks; 16 chunks of stage 0 + 1 of stage 15 = 68 block micro-batches (17 x 4).
  CHECK(dualpipe_rank(plan, stages, true).blocks == 8.0);
  CHECK(dualpipe_rank(plan, stages, true).activation_block_microbatches == 68.0);
  CHECK(dualpipe_rank(plan, stages, false).activation_block_microbatches == 68.0);
  // Uneven: first 3, last 5: 16 x 3 + 5 = 53 on the end ranks.
  stages.first = 3; stages.last = 5;
  CHECK(dualpipe_rank(plan, stages, true).activation_block_microbatches == 53.0);
  // t = 3 s: F 1, B 2, W 1, F&B 3: (8 - 1)(3 + 2 - 3) = 14 s (1F1B: (16 - 1) x 3 = 45 s).
  CHECK(dualpipe_bubble_s(16, 3.0) == Approx(14.0));
  CHECK(dualpipe_bubble_s(2, 3.0) == 0.0);
  CHECK(dualpipe_bubble_s(4, 3.0) == Approx(2.0));
}

TEST_CASE("DualPipe holds twice the blocks and the embedding and head on the end ranks (§5.8)") {
  Scenario one = parse(", precision: bf16", "{pp: 4}");
  Scenario dual = parse(", precision: bf16", "{pp: 4, pipeline_schedule: dualpipe}");
  const ParameterCounts params = count_parameters(one.model);
  const IslandLayout l = make_layout(one.cluster.islands[0], one.plan, 4);
  // Llama 3 8B: 32 blocks, 8 per stage. The middle rank holds stages 1 and 2: twice the weights of 1F1B's.
  const MemoryBreakdown mid1 = stage_memory(one, l, params, 8, StagePosition::middle);
  const MemoryBreakdown mid2 = stage_memory(dual, l, params, 8, StagePosition::middle);
  CHECK(mid2.weights_bytes == Approx(2.0 * mid1.weights_bytes));
  // Activations: 1F1B rank 1 holds pp - 1 = 3 micro-batches of 8 blocks; DualPipe pp + 1 = 5 chunks of 8.
  CHECK(mid2.activations_bytes == Approx(mid1.activations_bytes * 5.0 / 3.0));
  // Rank 0 holds stage 0 (embedding) and stage 3 (head): 16 blocks + embedding + head + final norm.
  const MemoryBreakdown first = stage_memory(dual, l, params, 8, StagePosition::first);
  const double p = 16.0 * params.layer + params.embedding + params.output_head + params.final_norm;
  CHECK(first.weights_bytes == Approx(2.0 * p));
  CHECK(first.logits_bytes > 0.0);
}

TEST_CASE("pipeline_schedule and fp8_activation_cache: scenario keys and their rules") {
  CHECK(parse("", "{pp: 4, pipeline_schedule: dualpipe}").plan.pipeline_schedule == PipelineSchedule::dualpipe);
  CHECK(parse("", "{}").plan.pipeline_schedule == PipelineSchedule::one_f_one_b);
  CHECK(parse(", precision: fp8", "{fp8_activation_cache: true}").plan.fp8_activation_cache);
  CHECK(check_consistency(parse("", "{pp: 4, pipeline_schedule: dualpipe}")).reason == RejectReason::none);
  // An odd pipeline (pp 1 here), or interleaving.
  const Violation odd = check_consistency(parse("", "{pp: 1, pipeline_schedule: dualpipe}"));
  CHECK(odd.reason == RejectReason::pipeline_split_invalid);
  CHECK(odd.field == FieldId::plan_pipeline_schedule);
  CHECK(check_consistency(parse("", "{pp: 2, interleave: 2, pipeline_schedule: dualpipe}")).reason ==
        RejectReason::pipeline_split_invalid);
  // 16 GPUs at pp 8: DP 2, 64 / 2 = 32 micro-batches >= 16; global batch 16: 8 < 16.
  CHECK(check_consistency(parse("", "{pp: 8, pipeline_schedule: dualpipe}")).reason == RejectReason::none);
  const cli::ScenarioDocument few = cli::scenario_document_from_text(
      "deepseek-test", "{name: t, model: {preset: llama3-8b}, training: {global_batch: 16}, cluster: {islands: "
                       "[{gpu: h100-sxm, gpus: 16}]}, plan: {pp: 8, pipeline_schedule: dualpipe}}");
  CHECK(check_consistency(cli::parse_scenario(few, test::shipped_catalog())).reason ==
        RejectReason::pipeline_split_invalid);
  // The activation cache stores fp8: bf16 training cannot.
  const Violation bf16 = check_consistency(parse(", precision: bf16", "{fp8_activation_cache: true}"));
  CHECK(bf16.reason == RejectReason::fp8_not_supported);
  CHECK(bf16.field == FieldId::plan_fp8_activation_cache);
}

TEST_CASE("DeepSeek-V3's published H800 layout fits in 80 GB within 15 % of 1,543 tokens/s per GPU (issue 29)") {
  const cli::LoadedScenario loaded =
      cli::load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/deepseek-v3-h800.yaml", {}, test::shipped_catalog());
  const Scenario& s = loaded.scenario;
  REQUIRE(s.plan.pipeline_schedule == PipelineSchedule::dualpipe);
  REQUIRE(s.plan.fp8_activation_cache);
  REQUIRE(s.cluster.islands[0].gpu.hbm_bytes == Approx(80.0 * 1073741824.0));
  const Estimate e = evaluate(s);
  CHECK(e.feasible);
  CHECK(e.memory_per_gpu_bytes <= e.memory_capacity_bytes);
  // arXiv 2412.19437 Table 1: 14.8 T tokens in 2.664 M H800 GPU-hours = 14.8e12 / (2.664e6 x 3600) = 1,543.2.
  const double published = 14.8e12 / (2.664e6 * 3600.0);
  CHECK(published == Approx(1543.2).epsilon(1e-4));
  CHECK(std::abs(e.tokens_per_s_per_gpu / published - 1.0) <= 0.15);
  // Without the activation cache (§3.3.2) it does not fit.
  Scenario off = s;
  off.plan.fp8_activation_cache = false;
  CHECK_FALSE(evaluate(off).feasible);
}
