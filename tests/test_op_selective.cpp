// torchtitan's per-op selective activation checkpointing, plan.recompute: op_selective, and FSDP2's
// reshard_after_forward (docs/model.md §7.5, §6.3, §7.6).
#include <catch2/catch.hpp>

#include "model/job/evaluate.hpp"
#include "model/kernels/flops.hpp"
#include "model/parallel/layout.hpp"
#include "model/memory/memory.hpp"
#include "model/kernels/parameters.hpp"
#include "model_fixtures.hpp"
#include "small_block_fixture.hpp"

using namespace shardmeter;
using namespace shardmeter::model;

TEST_CASE("op_selective: a block keeps the odd matmuls' outputs, attention's and the block input (§7.5)") {
  const ModelSpec m = test::small_block();
  PlanSpec plan;
  plan.recompute = Recompute::op_selective;
  // sbh = 1 x 1024 x 1024 = 1,048,576. Kept, t = 1: input 2 + w2 output 2 + (Q 2 + V 2 g/a = 2 + attention
  // output 2 + w1 output 2 f/h = 8) = 18 sbh = 18,874,368 bytes, plus the fp32 log-sum-exp 4 x 8 x 1024 = 32,768.
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(18874368.0 + 32768.0));
  // Without recompute the same block keeps 8 + (2 + 4 + 2 + 24) = 40 sbh + the LSE: op_selective keeps 45 %.
  PlanSpec none = plan;
  none.recompute = Recompute::none;
  CHECK(layer_activation_bytes(m, none, 1) == Approx(40.0 * 1048576.0 + 32768.0));
  // t = 2 with SP: input 2/2 + w2 partial 2 + two reduce-scatter outputs 4/2 + 14/2 = 12 sbh; LSE halves.
  plan.tp = 2;
  plan.sequence_parallel = true;
  CHECK(layer_activation_bytes(m, plan, 1) == Approx(12.0 * 1048576.0 + 16384.0));
}

TEST_CASE("op_selective: HFU adds wk, wo and the MLP's second matmul of every block (§7.5)") {
  const ModelSpec m = test::small_block();
  // Per block and sequence: 2 s (h (g + a) d + h f) = 2 x 1024 x (1024 x 2048 + 1024 x 4096)
  // = 2048 x 6,291,456 = 12,884,901,888 FLOPs; 32 blocks (llama3_8b's layer count kept).
  const FlopCounts f = count_flops(m, Recompute::op_selective, 1.0);
  CHECK(f.hardware_per_sequence - f.model_per_sequence == Approx(m.layers * 12884901888.0));
  // Less than full recompute, more than Megatron's selective with flash attention (which adds attention only).
  const FlopCounts full = count_flops(m, Recompute::full, 1.0);
  CHECK(f.hardware_per_sequence < full.hardware_per_sequence);
}

TEST_CASE("op_selective lies between none and full in memory and in recompute time (§7.5)") {
  for (int tp : {1, 2, 4}) {
    Scenario s = test::llama8b_fsdp(test::h100_sxm(), 8, 2);
    s.plan.tp = tp;
    s.plan.sequence_parallel = tp > 1;
    auto with = [&](Recompute r) {
      Scenario x = s;
      x.plan.recompute = r;
      return evaluate(x);
    };
    const Estimate none = with(Recompute::none), op = with(Recompute::op_selective), full = with(Recompute::full);
    INFO("tp " << tp);
    CHECK(op.memory.activations_bytes < none.memory.activations_bytes);
    CHECK(op.memory.activations_bytes > full.memory.activations_bytes);
    CHECK(op.time.recompute_s > 0);
    CHECK(op.time.recompute_s < full.time.recompute_s);
    CHECK(op.time.recompute_s > none.time.recompute_s);
  }
}

TEST_CASE("reshard_after_forward false: the stage's 16-bit weights stay gathered, the backward gathers vanish") {
  Scenario s = test::llama8b_fsdp(test::h100_sxm(), 8, 2);
  const IslandLayout l = make_layout(s.cluster.islands[0], s.plan);
  const ParameterCounts params = count_parameters(s.model);
  const MemoryBreakdown resharded = stage_memory(s, l, params, 1, StagePosition::only);
  s.plan.reshard_after_forward = false;
  const MemoryBreakdown kept = stage_memory(s, l, params, 1, StagePosition::only);
  // kept buffers = 2 bytes x every parameter of the stage (pp 1, tp 1: the whole model) + 2 bytes x one unit
  // (the embedding, the largest unit on a stage that holds it); resharded = (2 x 2 + 2) x that unit.
  const double unit = std::max(params.layer, params.embedding);
  const double stage = s.model.layers * params.layer + params.embedding + params.output_head + params.final_norm;
  CHECK(kept.fsdp_buffers_bytes == Approx(2.0 * stage + 2.0 * unit));
  CHECK(resharded.fsdp_buffers_bytes == Approx(6.0 * unit));
  // Property: never less memory, never more exposed DP time, for any GPU count.
  for (int gpus : {8, 16, 64}) {
    Scenario a = test::llama8b_fsdp(test::h100_sxm(), gpus, 2);
    Scenario b = a;
    b.plan.reshard_after_forward = false;
    const Estimate ea = evaluate(a), eb = evaluate(b);
    INFO(gpus << " GPUs");
    CHECK(eb.memory.fsdp_buffers_bytes >= ea.memory.fsdp_buffers_bytes);
    CHECK(eb.time.dp_comm_s <= ea.time.dp_comm_s);
  }
}
