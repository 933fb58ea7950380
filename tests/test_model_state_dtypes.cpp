// Optimizer-state and master-weight dtypes, main gradients in the reduction's type on Megatron stacks, and the FSDP
// unit size (docs/model.md §2.7, §6.3, §7.1, §7.2, §7.6; issue 9 item 8): the byte counts worked out by hand,
// Megatron's own table of bytes per parameter, the Nemotron-4 340B run that ran, the keys' located errors, and a
// search axis over each new key.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "model/job/evaluate.hpp"
#include "model/comm/fsdp_exposure.hpp"
#include "model/parallel/layout.hpp"
#include "model/memory/memory.hpp"
#include "model/memory/state_bytes.hpp"
#include "model_fixtures.hpp"
#include "search/patch.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter;
using model::MasterWeights;
using model::Optimizer;
using model::Sharding;
using model::Stack;
using model::StagePosition;
using model::StateDtype;

namespace {

model::TrainingSpec numerics(Optimizer opt, StateDtype states, MasterWeights master, int grad_bytes = 4) {
  model::TrainingSpec t;
  t.optimizer = opt;
  t.optimizer_state_dtype = states;
  t.master_weights = master;
  t.grad_reduce_bytes = grad_bytes;
  return t;
}

double model_states(const model::MemoryBreakdown& m) { return m.weights_bytes + m.gradients_bytes + m.optimizer_bytes; }

model::MemoryBreakdown stage(const model::Scenario& s, StagePosition position) {
  return model::stage_memory(s, model::make_layout(s.cluster.islands[0], s.plan), model::count_parameters(s.model), 16,
                             position);
}

// Nemotron-4 340B on 128 H100s as NVIDIA's DGX Cloud benchmark 24.11 ran it (dgxc-benchmarking nemotron/
// README_340b.md @35a9aecc, nemotron4-340b-synth.yaml @8f5cbb37): TP 8, PP 8, VP 12, MBS 1, GBS 32, SP, TP overlap,
// selective recompute, distributed_fused_adam (zero1) with grad_sync_dtype bf16.
model::Scenario nemotron4_340b_g128() {
  model::Scenario s{};
  model::ModelSpec& m = s.model;
  m.layers = 96; m.hidden = 18432; m.heads = 96; m.kv_heads = 8; m.head_dim = 192;
  m.ffn_hidden = 73728; m.vocab = 256000; m.seq_len = 4096;
  m.ffn_type = model::FfnType::gelu; m.norm = model::NormType::layernorm;
  m.position_embedding = model::PositionEmbedding::rope;
  m.bias = false; m.tied_embeddings = false; m.dropout = false;
  s.training.global_batch = 32;
  s.training.micro_batch = 1;
  s.training.tokens = 1e12;
  s.training.grad_reduce_bytes = 2;
  s.cluster.islands[0] = test::island(test::h100_sxm(), 128, 3200);
  s.cluster.island_entries = 1;
  s.plan.tp = 8;
  s.plan.pp = 8;
  s.plan.interleave = 12;
  s.plan.sequence_parallel = true;
  s.plan.sharding = Sharding::zero1;
  s.plan.recompute = model::Recompute::selective;
  s.plan.tp_comm_overlap = true;
  s.plan.stack = Stack::megatron_te;
  return s;
}

cli::LoadedScenario load_small(const std::vector<std::string>& sets) {
  std::vector<cli::Override> overrides;
  for (const std::string& s : sets) overrides.push_back(cli::parse_override(s));
  return cli::load_scenario(std::string(SHARDMETER_TEST_DATA_DIR) + "/small.yaml", overrides, test::shipped_catalog());
}

}  // namespace

TEST_CASE("Optimizer-state bytes per parameter: master copy + moments at their dtype (§7.2)") {
  // K = master (4 or 0) + n moments x e bytes: AdamW fp32 4 + 2 x 4 = 12; bf16 moments 4 + 2 x 2 = 8; bf16, no
  // master 0 + 4 = 4; fp32, no master 8. 8-bit AdamW 4 + 2 x 1 = 6 (no master: 2). SGD-momentum / Lion 4 + 4 = 8,
  // bf16 4 + 2 = 6, bf16 no master 2.
  CHECK(model::optimizer_bytes_per_param(numerics(Optimizer::adamw, StateDtype::fp32, MasterWeights::fp32)) == 12.0);
  CHECK(model::optimizer_bytes_per_param(numerics(Optimizer::adamw, StateDtype::bf16, MasterWeights::fp32)) == 8.0);
  CHECK(model::optimizer_bytes_per_param(numerics(Optimizer::adamw, StateDtype::bf16, MasterWeights::none)) == 4.0);
  CHECK(model::optimizer_bytes_per_param(numerics(Optimizer::adamw, StateDtype::fp32, MasterWeights::none)) == 8.0);
  CHECK(model::optimizer_bytes_per_param(numerics(Optimizer::adamw_8bit, StateDtype::fp32, MasterWeights::fp32)) == 6.0);
  CHECK(model::optimizer_bytes_per_param(numerics(Optimizer::adamw_8bit, StateDtype::fp32, MasterWeights::none)) == 2.0);
  for (Optimizer one_state : {Optimizer::sgd_momentum, Optimizer::lion}) {
    CHECK(model::optimizer_bytes_per_param(numerics(one_state, StateDtype::fp32, MasterWeights::fp32)) == 8.0);
    CHECK(model::optimizer_bytes_per_param(numerics(one_state, StateDtype::bf16, MasterWeights::fp32)) == 6.0);
    CHECK(model::optimizer_bytes_per_param(numerics(one_state, StateDtype::bf16, MasterWeights::none)) == 2.0);
  }
}

TEST_CASE("Main gradients: the reduction's type on Megatron stacks, 2 bytes elsewhere (§7.1)") {
  const model::TrainingSpec fp32_reduce = numerics(Optimizer::adamw, StateDtype::fp32, MasterWeights::fp32, 4);
  const model::TrainingSpec bf16_reduce = numerics(Optimizer::adamw, StateDtype::fp32, MasterWeights::fp32, 2);
  for (Stack megatron : {Stack::megatron, Stack::megatron_te}) {
    CHECK(model::gradient_bytes_per_param(fp32_reduce, megatron) == 4.0);
    CHECK(model::gradient_bytes_per_param(bf16_reduce, megatron) == 2.0);
  }
  for (Stack other : {Stack::torch_fsdp2, Stack::torch_fsdp1, Stack::deepspeed, Stack::deepspeed_2021})
    CHECK(model::gradient_bytes_per_param(fp32_reduce, other) == 2.0);
}

TEST_CASE("Optimizer update traffic per owned parameter follows the dtypes (§2.7)") {
  // gradient read + weights (fp32 master r/w 8 + 16-bit copy 2, or 16-bit r/w 4) + 2 x moments x bytes.
  // Defaults on every stack with fp32 gradients: 4 + 10 + 16 = 30; 8-bit AdamW 4 + 10 + 4 = 18; SGD 4 + 10 + 8 = 22.
  CHECK(model::optimizer_update_bytes_per_param(numerics(Optimizer::adamw, StateDtype::fp32, MasterWeights::fp32),
                                                Stack::torch_fsdp2) == 30.0);
  CHECK(model::optimizer_update_bytes_per_param(numerics(Optimizer::adamw, StateDtype::fp32, MasterWeights::fp32),
                                                Stack::megatron_te) == 30.0);
  CHECK(model::optimizer_update_bytes_per_param(numerics(Optimizer::adamw_8bit, StateDtype::fp32, MasterWeights::fp32),
                                                Stack::torch_fsdp1) == 18.0);
  CHECK(model::optimizer_update_bytes_per_param(numerics(Optimizer::sgd_momentum, StateDtype::fp32, MasterWeights::fp32),
                                                Stack::deepspeed) == 22.0);
  // Megatron with bf16 main gradients: 2 + 10 + 16 = 28. NeMo distributed_fused_adam with dtype bf16 (bf16 moments,
  // no master, bf16 gradients): 2 + 4 + 2 x 2 x 2 = 14. PyTorch with bf16 moments and no master: 2 + 4 + 8 = 14.
  CHECK(model::optimizer_update_bytes_per_param(numerics(Optimizer::adamw, StateDtype::fp32, MasterWeights::fp32, 2),
                                                Stack::megatron_te) == 28.0);
  CHECK(model::optimizer_update_bytes_per_param(numerics(Optimizer::adamw, StateDtype::bf16, MasterWeights::none, 2),
                                                Stack::megatron_te) == 14.0);
  CHECK(model::optimizer_update_bytes_per_param(numerics(Optimizer::adamw, StateDtype::bf16, MasterWeights::none, 4),
                                                Stack::torch_fsdp2) == 14.0);
}

TEST_CASE("Megatron's distributed-optimizer table: bf16 parameters, fp32 gradients = 18 and 6 + 12/d bytes") {
  // Megatron-LM core_v0.19.0 docs/user-guide/features/dist_optimizer.md: bf16 params with fp32 main gradients keep
  // 2 + 4 + 12 = 18 bytes per parameter without the distributed optimizer, 6 + 12/d with it. Llama-3-8B on 64 GPUs,
  // tp 1: d = 64.
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64, 1);
  s.plan.stack = Stack::megatron_te;
  s.training.grad_reduce_bytes = 4;
  const double p = model::count_parameters(s.model).total;
  s.plan.sharding = Sharding::none;
  CHECK(model_states(stage(s, StagePosition::only)) == Approx(18.0 * p));
  s.plan.sharding = Sharding::zero1;
  CHECK(model_states(stage(s, StagePosition::only)) == Approx((6.0 + 12.0 / 64) * p));
  // The same plan on PyTorch FSDP2 keeps ShardMeter's 2-byte gradient row: 4 + 12/64.
  s.plan.stack = Stack::torch_fsdp2;
  CHECK(model_states(stage(s, StagePosition::only)) == Approx((4.0 + 12.0 / 64) * p));
}

TEST_CASE("Nemotron-4 340B on 128 H100s fits with its bf16 optimizer states and no master copy, as it ran") {
  // Per block: q, o 18432 x 18432 = 339,738,624 each; k, v 18432 x 8 x 192 = 28,311,552 each; MLP 2 x 18432 x
  // 73728 = 2,717,908,992; two LayerNorms (weight + bias) 73,728: 3,454,083,072. First stage: 96 / 8 = 12 blocks
  // + the 256000 x 18432 = 4,718,592,000 embedding = 46,167,588,864, over TP 8: 5,770,948,608 per GPU.
  // DP = 128 / 64 = 2, zero1. fp32 master + fp32 moments: 2 + 2 + 12/2 = 10 bytes = 57,709,486,080;
  // the run's optim.dtype bf16 (bf16 moments, no master; NeMo store_params = False): 2 + 2 + 4/2 = 6 bytes =
  // 34,625,691,648.
  model::Scenario s = nemotron4_340b_g128();
  CHECK(model_states(stage(s, StagePosition::first)) == Approx(57'709'486'080.0));
  const model::Estimate fp32_states = model::evaluate(s);
  CHECK(fp32_states.reject_reason == model::RejectReason::out_of_memory);  // the symptom
  CHECK_FALSE(fp32_states.feasible);

  s.training.optimizer_state_dtype = StateDtype::bf16;
  s.training.master_weights = MasterWeights::none;
  CHECK(model_states(stage(s, StagePosition::first)) == Approx(34'625'691'648.0));
  const model::Estimate as_run = model::evaluate(s);
  REQUIRE(as_run.reject_reason == model::RejectReason::none);
  CHECK(as_run.feasible);
  CHECK(as_run.memory_per_gpu_bytes < fp32_states.memory_per_gpu_bytes - 20e9);
  // The optimizer step touches 14 instead of 28 bytes per owned parameter (§2.7).
  CHECK(as_run.time.optimizer_s < fp32_states.time.optimizer_s);
}

TEST_CASE("FSDP unit size: buffers of the largest unit, units per pass (§6.3, §7.6)") {
  // Llama-3-8B on 8 GPUs, tp 1, one stage of 32 blocks of 218,112,000; embedding 525,336,576. Buffers
  // (2 x 2 + 2) x unit: 1 block per unit -> the embedding is larger: 3,152,019,456 bytes; 4 blocks = 872,448,000
  // -> 5,234,688,000 bytes; 32 or more blocks: the whole stage 6,979,584,000 -> 41,877,504,000 bytes.
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 8, 1);
  CHECK(stage(s, StagePosition::only).fsdp_buffers_bytes == Approx(3'152'019'456.0));
  s.plan.fsdp_unit_layers = 4;
  CHECK(stage(s, StagePosition::only).fsdp_buffers_bytes == Approx(5'234'688'000.0));
  s.plan.fsdp_unit_layers = 32;
  CHECK(stage(s, StagePosition::only).fsdp_buffers_bytes == Approx(41'877'504'000.0));
  s.plan.fsdp_unit_layers = 1000;
  CHECK(stage(s, StagePosition::only).fsdp_buffers_bytes == Approx(41'877'504'000.0));

  // Units per pass: ceil(32 / k), at least one.
  model::PlanSpec plan;
  for (auto [k, units] : {std::pair{1, 32.0}, {4, 8.0}, {5, 7.0}, {32, 1.0}, {100, 1.0}}) {
    plan.fsdp_unit_layers = k;
    CHECK(model::fsdp_units(plan, 32) == units);
  }

  // Coarser units expose more of the first all-gather and the last reduce-scatter: never less DP time, never less
  // memory.
  model::Scenario m = test::llama8b_fsdp(test::h100_sxm(), 64, 1);
  double previous_time = 0, previous_memory = 0;
  for (int k : {1, 2, 4, 8, 16, 32}) {
    m.plan.fsdp_unit_layers = k;
    const model::Estimate e = model::evaluate(m);
    REQUIRE(e.reject_reason == model::RejectReason::none);
    CHECK(e.time.dp_comm_s >= previous_time);
    CHECK(e.memory_per_gpu_bytes >= previous_memory);
    previous_time = e.time.dp_comm_s;
    previous_memory = e.memory_per_gpu_bytes;
  }
}

TEST_CASE("The new keys: defaults, values and located errors") {
  const cli::LoadedScenario plain = load_small({});
  CHECK(plain.scenario.training.optimizer_state_dtype == StateDtype::fp32);
  CHECK(plain.scenario.training.master_weights == MasterWeights::fp32);
  CHECK(plain.scenario.plan.fsdp_unit_layers == 1);
  const cli::LoadedScenario set = load_small({"training.optimizer_state_dtype=bf16", "training.master_weights=none",
                                              "plan.sharding=fsdp", "plan.fsdp_unit_layers=4"});
  CHECK(set.scenario.training.optimizer_state_dtype == StateDtype::bf16);
  CHECK(set.scenario.training.master_weights == MasterWeights::none);
  CHECK(set.scenario.plan.fsdp_unit_layers == 4);

  CHECK_THROWS_WITH(load_small({"training.optimizer_state_dtype=fp8"}),
                    Catch::Contains("training.optimizer_state_dtype = fp8") && Catch::Contains("fp32") &&
                        Catch::Contains("bf16"));
  CHECK_THROWS_WITH(load_small({"training.master_weights=bf16"}),
                    Catch::Contains("training.master_weights = bf16") && Catch::Contains("none"));
  CHECK_THROWS_WITH(load_small({"training.optimizer=adamw_8bit", "training.optimizer_state_dtype=bf16"}),
                    Catch::Contains("training.optimizer_state_dtype = bf16") &&
                        Catch::Contains("cannot be combined with training.optimizer: adamw_8bit"));
  CHECK(load_small({"training.optimizer=adamw_8bit", "training.optimizer_state_dtype=fp32"}).scenario.training.optimizer ==
        Optimizer::adamw_8bit);
  CHECK_THROWS_WITH(load_small({"plan.sharding=fsdp", "plan.fsdp_unit_layers=0"}),
                    Catch::Contains("plan.fsdp_unit_layers = 0"));
  CHECK_THROWS_WITH(load_small({"plan.sharding=zero1", "plan.fsdp_unit_layers=2"}),
                    Catch::Contains("plan.fsdp_unit_layers = 2") && Catch::Contains("needs plan.sharding: fsdp or hsdp"));
}

TEST_CASE("Search axes over the new keys are byte patches that --set reproduces") {
  const cli::LoadedScenario base = load_small({"plan.sharding=fsdp"});
  for (const char* spec : {"training.optimizer_state_dtype=[fp32, bf16]", "training.master_weights=[fp32, none]",
                           "plan.fsdp_unit_layers=[1, 4]"}) {
    INFO(spec);
    const cli::AxisSpec axis_spec = cli::axis_from_text(spec);
    const search::Axis axis = cli::build_axis(base.doc, base.scenario, test::shipped_catalog(), axis_spec);
    REQUIRE(axis.patches.size() == 2);
    model::Scenario patched = base.scenario;
    axis.patches[1].apply(patched);
    const cli::LoadedScenario direct = load_small({"plan.sharding=fsdp", axis_spec.key + "=" + axis_spec.values[1]});
    CHECK(search::same_bytes(patched, direct.scenario));
    CHECK_FALSE(search::same_bytes(patched, base.scenario));
    // Each value moves the memory the model reports.
    CHECK(model::evaluate(patched).memory_per_gpu_bytes != model::evaluate(base.scenario).memory_per_gpu_bytes);
  }
}
