#include <catch2/catch.hpp>

#include "model/job/evaluate.hpp"
#include "model/kernels/flops.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter;
using model::Sharding;

TEST_CASE("The step's components add up and the derived metrics follow their definitions") {
  const model::Scenario s = test::gpt3_on_a100();
  const model::Estimate e = model::evaluate(s);
  REQUIRE(e.feasible);
  CHECK(e.time.total() == Approx(e.step_time_s));
  CHECK(e.tokens_per_s == Approx(1536.0 * 2048 / e.step_time_s));
  CHECK(e.tokens_per_s_per_gpu == Approx(e.tokens_per_s / 1536));
  const double model_flops = 1536 * model::count_flops(s.model, s.plan.recompute).model_per_sequence;
  CHECK(e.mfu == Approx(model_flops / (e.step_time_s * 1536 * 312e12)));
  CHECK(e.hfu > e.mfu);  // selective recompute re-runs attention
  CHECK(e.tflops_per_gpu == Approx(e.mfu * 312));
  CHECK(e.cost_usd_per_hour == Approx(1536 * 1.50));
  CHECK(e.goodput < 1.0);
  CHECK(e.goodput > 0.9);
  CHECK(e.wall_clock_s == Approx(300e9 / e.tokens_per_s / e.goodput));
  CHECK(e.total_cost_usd == Approx(e.cost_usd_per_hour * e.wall_clock_s / 3600));
  CHECK(e.cost_usd_per_million_tokens == Approx(e.total_cost_usd / 300e3));
}

TEST_CASE("Pipeline bubble is (p-1)/(v m) of the steady state when stages are balanced (Narayanan et al. §2.2)") {
  model::Scenario s = test::gpt3_on_a100(1536, 8, 12);
  s.model.vocab = 8;                      // no logits imbalance between stages
  s.model.tied_embeddings = false;        // and no embedding all-reduce
  for (int v : {1, 2}) {
    s.plan.interleave = v;
    const model::Estimate e = model::evaluate(s);
    REQUIRE(e.feasible);
    const double m = 1536.0 / 16;         // micro-batches per replica: dp = 1536 / 96 = 16
    // The slowest-rank wait (docs/model.md §5.6) is not part of the pipeline's steady state.
    const double steady = e.step_time_s - e.time.bubble_s - e.time.optimizer_s - e.time.dp_comm_s - e.time.straggler_s;
    CHECK(e.time.bubble_s / steady == Approx(11.0 / (v * m)).epsilon(0.01));
  }
}

TEST_CASE("Exposed communication grows when overlap is disabled") {
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64);
  s.plan.sharding = Sharding::none;
  s.plan.recompute = model::Recompute::selective;
  s.training.micro_batch = 1;
  s.training.global_batch = 64;
  const model::Estimate overlapped = model::evaluate(s);
  s.plan.overlap_grad_reduce = false;
  const model::Estimate serial = model::evaluate(s);
  CHECK(serial.time.dp_comm_s > overlapped.time.dp_comm_s);
  CHECK(serial.step_time_s > overlapped.step_time_s);
}

TEST_CASE("TP across nodes is slower than TP inside the NVLink domain") {
  model::Scenario s = test::gpt3_on_a100(1536, 8, 12);
  const double inside = model::evaluate(s).time.tp_comm_s;
  s.cluster.islands[0].gpus_per_node = 4;          // same plan, TP group now spans two 4-GPU nodes
  s.cluster.islands[0].gpu.scaleup_domain_gpus = 4;
  CHECK(model::evaluate(s).time.tp_comm_s > 1.5 * inside);
}

TEST_CASE("An inconsistent plan is rejected before any estimate, with its reason") {
  model::Scenario s = test::gpt3_on_a100(1544, 8, 12);  // 1544 % (8 * 12) = 8
  model::Estimate e = model::evaluate(s);
  CHECK_FALSE(e.feasible);
  CHECK(e.reject_reason == model::RejectReason::parallel_degrees_do_not_divide_gpus);
  s = test::gpt3_on_a100();
  s.plan.tp = 5;
  CHECK(model::evaluate(s).reject_reason == model::RejectReason::heads_not_divisible_by_tp);
  s = test::gpt3_on_a100(1536, 8, 12);
  s.training.global_batch = 1000;
  CHECK(model::evaluate(s).reject_reason == model::RejectReason::global_batch_not_divisible);
}

TEST_CASE("Context parallelism exchanges K and V around the CP group, hidden under attention when it can be") {
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64, 1);
  s.model.seq_len = 65536;
  s.plan.cp = 4;
  s.training.global_batch = 64;
  const model::Estimate fast_links = model::evaluate(s);
  REQUIRE(fast_links.reject_reason == model::RejectReason::none);
  // KV per layer: 2 (K, V) x 65536 tokens x 8 kv heads x 128 x 2 bytes = 268 MB, all-gathered over 4 NVLink ranks;
  // at 1/100 of NVLink bandwidth the exchange no longer fits under the attention kernels.
  model::Scenario slow = s;
  slow.cluster.islands[0].gpu.scaleup.bytes_per_s /= 100;
  const model::Estimate slow_links = model::evaluate(slow);
  CHECK(slow_links.time.tp_comm_s > fast_links.time.tp_comm_s + 1.0);
  s.plan.cp = 1;
  s.training.global_batch = 64;
  CHECK(model::evaluate(s).time.tp_comm_s == 0.0);  // tp = 1, cp = 1: no TP/CP traffic at all
}
