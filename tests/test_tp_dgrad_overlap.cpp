// Megatron's asynchronous column-parallel backward (docs/model.md §4.4, `plan.tp_dgrad_overlap`): the backward TP
// collectives of a dense block hidden behind the dgrad/wgrad GEMMs, at the contention cost of §6.6. Values worked
// out by hand in the comments.
#include <catch2/catch.hpp>

#include "model/step/layer_cost.hpp"
#include "model/parallel/layout.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter::model;
using shardmeter::test::a100_80gb;
using shardmeter::test::gpt3_175b;

namespace {

struct Case {
  IslandSpec island;
  PlanSpec plan;
};

// GPT-3 175B block, TP 8 inside one A100 node, no link latency (the fixture GPU gives no sm_count).
Case tp8_a100(bool sequence_parallel, bool dgrad_overlap) {
  Case c{shardmeter::test::island(a100_80gb(), 8), PlanSpec{}};
  c.island.gpu.scaleup.latency_s = 0;
  c.plan.tp = 8;
  c.plan.sequence_parallel = sequence_parallel;
  c.plan.recompute = Recompute::full;
  c.plan.attention = AttentionKernel::standard;
  c.plan.tp_dgrad_overlap = dgrad_overlap;
  return c;
}

LayerCost cost(const Case& c) {
  const IslandLayout l = make_layout(c.island, c.plan, 1);
  return layer_cost(gpt3_175b(), c.island.gpu, c.plan, Precision::fp16, 1, l);
}

// One TP all-reduce of b·s·h = 2048 × 12288 fp16 = 50,331,648 bytes over 8 ranks at 300 GB/s × 0.78 = 234 GB/s:
//   2 × 7/8 × 50,331,648 / 234e9 = 3.76412e-4 s; each half (reduce-scatter, all-gather) 1.88206e-4 s.
// Contention of the 8-rank NVLink ring (24 channels; sm_count unknown, so f_sm = 0.15) at the all-reduce's average
// rate, 2 × 50,331,648 bytes through the GPU in 3.76412e-4 s = 267.43 GB/s (docs/model.md §6.6):
//   f_bw = 3 × 267.43e9 / (0.85 × 2.039e12) = 0.462906
//   slowdown = 0.85 × 0.15 / 0.85 + 0.15 × 0.462906 = 0.15 + 0.069436 = 0.219436 (contention_scale 1).
// Every window is larger: the QKV weight-gradient GEMM alone is 2 × 2048 × 4608 × 12288 FLOP at 0.7 × 312 TFLOP/s
// ≈ 1.1 ms, so 0.9 × window > 0.38 ms and every collective is hidden whole.
constexpr double kAllReduce = 3.76412e-4 + 8.4e-6;  // + NCCL's ring/Simple base latency (docs/model.md §3.5)
// Contention at the all-reduce's average rate with that latency: 2 × 50,331,648 B / 3.84812e-4 s = 261.591 GB/s,
//   f_bw = 3 × 261.591e9 / (0.85 × 2.039e12) = 0.452801; slowdown = 0.15 + 0.15 × 0.452801 = 0.217920.
constexpr double kSlowdown = 0.217920;

}  // namespace

TEST_CASE("tp_dgrad_overlap without SP: both column-parallel all-reduces run under their wgrad GEMMs") {
  const LayerCost sync = cost(tp8_a100(false, false));
  const LayerCost async = cost(tp8_a100(false, true));
  CHECK(sync.forward.tp_comm_s == Approx(2 * kAllReduce).epsilon(1e-5));
  CHECK(sync.backward.tp_comm_s == Approx(2 * kAllReduce).epsilon(1e-5));
  // 2 × slowdown × all-reduce = 2 × 0.217920 × 3.84812e-4 = 1.67717e-4 s exposed.
  CHECK(async.backward.tp_comm_s == Approx(1.67717e-4).epsilon(1e-4));
  // The forward and the full recompute's forward keep their synchronous all-reduces.
  CHECK(async.forward.tp_comm_s == sync.forward.tp_comm_s);
  CHECK(async.recompute.tp_comm_s == sync.recompute.tp_comm_s);
  CHECK(async.backward.gemm_s == sync.backward.gemm_s);
}

TEST_CASE("tp_dgrad_overlap with SP: row-parallel all-gathers stay exposed, the re-gather and reduce-scatter hide") {
  const LayerCost sync = cost(tp8_a100(true, false));
  const LayerCost async = cost(tp8_a100(true, true));
  CHECK(sync.backward.tp_comm_s == Approx(2 * kAllReduce).epsilon(1e-5));
  // 2 all-gathers exposed + per column layer slowdown × (re-gather + reduce-scatter):
  //   the all-gathers (the all-reduce less its reduce-scatter half, each collective with NCCL's 8.4 µs base) plus
  //   2 × 1.88206e-4 + 2 × 0.217920 × 3.84812e-4 = 3.76412e-4 + 1.67717e-4 = 5.44129e-4 s.
  CHECK(async.backward.tp_comm_s == Approx(5.44129e-4).epsilon(1e-4));
  CHECK(2 * kAllReduce * kSlowdown == Approx(1.67717e-4).epsilon(1e-4));
}

TEST_CASE("tp_dgrad_overlap changes nothing at TP 1 or on top of userbuffers TP overlap") {
  Case one = tp8_a100(false, true);
  one.plan.tp = 1;
  CHECK(cost(one).backward.tp_comm_s == 0.0);
  Case ub = tp8_a100(true, true);
  ub.plan.tp_comm_overlap = true;
  Case ub_only = ub;
  ub_only.plan.tp_dgrad_overlap = false;
  CHECK(cost(ub).backward.tp_comm_s == cost(ub_only).backward.tp_comm_s);
}
