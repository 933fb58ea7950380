// Partial activation checkpointing, plan.recompute_layers (docs/model.md §7.5).
#include <catch2/catch.hpp>

#include "model/job/evaluate.hpp"
#include "model/kernels/flops.hpp"
#include "model/parallel/layout.hpp"
#include "model/memory/memory.hpp"
#include "model/kernels/parameters.hpp"
#include "model/parallel/recompute.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter;
using namespace shardmeter::model;

TEST_CASE("recompute_layers: how many blocks of a stage are checkpointed whole") {
  PlanSpec plan;
  plan.recompute = Recompute::full;
  CHECK(recomputed_blocks(plan, 32) == 32);   // 0 = all blocks
  plan.recompute_layers = 8;
  CHECK(recomputed_blocks(plan, 32) == 8);
  plan.recompute_layers = 40;
  CHECK(recomputed_blocks(plan, 32) == 32);   // never more than the stage holds
  plan.recompute = Recompute::selective;      // selective applies to every block
  CHECK(recomputed_blocks(plan, 32) == 32);
}

TEST_CASE("recompute_layers: activations, recompute time and HFU scale with the checkpointed blocks") {
  // Llama-3-8B (32 blocks) FSDP on 8 GPUs, micro-batch 1, pp 1: activations = N x full-block bytes
  // + (32 - N) x whole-block bytes + one block's working set. N = 8: 8 f + 24 w + ws.
  Scenario s = test::llama8b_fsdp(test::h100_sxm(), 8, 1);
  s.plan.recompute = Recompute::full;
  const IslandLayout l = make_layout(s.cluster.islands[0], s.plan);
  const ParameterCounts params = count_parameters(s.model);
  const MemoryBreakdown all = stage_memory(s, l, params, 1, StagePosition::only);
  s.plan.recompute_layers = 8;
  const MemoryBreakdown part = stage_memory(s, l, params, 1, StagePosition::only);
  PlanSpec none = s.plan;
  none.recompute = Recompute::none;
  const double f = layer_activation_bytes(s.model, s.plan, 1);
  const double w = layer_activation_bytes(s.model, none, 1);
  // all = 32 f + ws; part = 8 f + 24 w + ws  =>  part - all = 24 (w - f).
  CHECK(part.activations_bytes - all.activations_bytes == Approx(24.0 * (w - f)));

  // HFU numerator: model FLOPs + (8/32) of the full-recompute extra.
  const FlopCounts full = count_flops(s.model, Recompute::full, 1.0);
  const FlopCounts quarter = count_flops(s.model, Recompute::full, 0.25);
  CHECK(quarter.hardware_per_sequence - quarter.model_per_sequence ==
        Approx(0.25 * (full.hardware_per_sequence - full.model_per_sequence)));

  // Recompute time: a quarter of the all-blocks figure.
  s.plan.recompute_layers = 0;
  const double t_all = evaluate(s).time.recompute_s;
  s.plan.recompute_layers = 8;
  CHECK(evaluate(s).time.recompute_s == Approx(0.25 * t_all));
}
