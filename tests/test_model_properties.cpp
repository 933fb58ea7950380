#include <catch2/catch.hpp>

#include <vector>

#include "model/job/evaluate.hpp"
#include "model_fixtures.hpp"
#include "same_estimate.hpp"

using namespace shardmeter;
using model::Recompute;
using model::Sharding;

namespace {

// A spread of plans over every sharding mode and 3-D layout, all consistent and feasible on 64 H100s.
std::vector<model::Scenario> plan_zoo() {
  std::vector<model::Scenario> zoo;
  for (Sharding sh : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::fsdp, Sharding::hsdp}) {
    for (int tp : {1, 2, 8}) {
      for (int pp : {1, 2}) {
        model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64, 1);
        s.plan.sharding = sh;
        s.plan.tp = tp;
        s.plan.pp = pp;
        s.plan.sequence_parallel = tp > 1;
        s.training.global_batch = 256;
        if (model::evaluate(s).reject_reason == model::RejectReason::none) zoo.push_back(s);
      }
    }
  }
  return zoo;
}

}  // namespace

TEST_CASE("More bandwidth is never slower (scale-up, scale-out, both)") {
  const std::vector<model::Scenario> zoo = plan_zoo();
  REQUIRE(zoo.size() >= 20);
  for (const model::Scenario& base : zoo) {
    for (double factor : {1.5, 2.0, 4.0}) {
      model::Scenario more_out = base;
      more_out.cluster.islands[0].node_network.bytes_per_s *= factor;
      model::Scenario more_up = base;
      more_up.cluster.islands[0].gpu.scaleup.bytes_per_s *= factor;
      const double t = model::evaluate(base).step_time_s;
      CHECK(model::evaluate(more_out).step_time_s <= t);
      CHECK(model::evaluate(more_up).step_time_s <= t);
    }
  }
}

TEST_CASE("More FSDP shards never mean more memory per GPU") {
  for (Sharding sh : {Sharding::zero1, Sharding::zero2, Sharding::fsdp}) {
    double previous = 1e30;
    for (int gpus : {8, 16, 32, 64, 128, 256, 512}) {
      model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), gpus, 1);
      s.plan.sharding = sh;
      const model::Estimate e = model::evaluate(s);
      REQUIRE(e.reject_reason != model::RejectReason::global_batch_not_divisible);
      CHECK(e.memory_per_gpu_bytes <= previous);
      previous = e.memory_per_gpu_bytes;
    }
  }
}

TEST_CASE("Recompute never means more memory; none >= selective >= full") {
  for (const model::Scenario& base : plan_zoo()) {
    for (model::AttentionKernel attn : {model::AttentionKernel::flash, model::AttentionKernel::standard}) {
      model::Scenario s = base;
      s.plan.attention = attn;
      s.plan.recompute = Recompute::none;
      const double none = model::evaluate(s).memory_per_gpu_bytes;
      s.plan.recompute = Recompute::selective;
      const double selective = model::evaluate(s).memory_per_gpu_bytes;
      s.plan.recompute = Recompute::full;
      const double full = model::evaluate(s).memory_per_gpu_bytes;
      CHECK(selective <= none);
      CHECK(full <= selective);
    }
  }
}

TEST_CASE("Recompute never makes a step faster; sharding never lowers communication") {
  // The title's two halves, each asserted (until issue 32 only the first was). Recompute: full re-runs the forward
  // pass, so its step is never shorter than none's. Sharding: with nothing overlapped (so the data-parallel time is
  // the whole collective time), ZeRO-1 reduce-scatters the gradients and all-gathers the parameters, the volume of
  // DDP's all-reduce (ring all-reduce = reduce-scatter + all-gather), and FSDP all-gathers the parameters again for
  // the backward pass: none <= zero1 and zero2 <= fsdp, on every plan with more than one data-parallel rank.
  int sharded = 0;
  for (const model::Scenario& base : plan_zoo()) {
    model::Scenario s = base;
    s.plan.recompute = Recompute::none;
    const double none = model::evaluate(s).step_time_s;
    s.plan.recompute = Recompute::full;
    CHECK(model::evaluate(s).step_time_s >= none);

    model::Scenario c = base;
    c.plan.overlap_grad_reduce = false;
    c.plan.overlap_param_gather = false;
    double dp_s[5] = {};
    int k = 0;
    for (Sharding sh : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::fsdp}) {
      c.plan.sharding = sh;
      const model::Estimate e = model::evaluate(c);
      REQUIRE(e.reject_reason != model::RejectReason::global_batch_not_divisible);
      dp_s[k++] = e.time.dp_comm_s;
    }
    if (model::evaluate(c).islands[0].degrees.data_parallel < 2) continue;
    ++sharded;
    INFO("tp " << base.plan.tp << " pp " << base.plan.pp << ": none " << dp_s[0] << " s, zero1 " << dp_s[1]
               << " s, zero2 " << dp_s[2] << " s, fsdp " << dp_s[3] << " s");
    CHECK(dp_s[0] > 0);
    CHECK(dp_s[1] >= dp_s[0] * (1 - 1e-9));
    CHECK(dp_s[3] >= dp_s[2]);
    CHECK(dp_s[3] > dp_s[0]);
  }
  CHECK(sharded >= 10);
}

TEST_CASE("Evaluation is pure: same input, same bytes out") {
  // Every field of the estimate, bit for bit (tests/same_estimate.hpp; until issue 32 only two fields were
  // compared): twice from scratch, and once into an Estimate another plan wrote first (the search's reuse).
  const std::vector<model::Scenario> zoo = plan_zoo();
  REQUIRE(zoo.size() >= 2);
  model::Estimate reused = model::evaluate(zoo.back());
  for (const model::Scenario& s : zoo) {
    const model::Estimate a = model::evaluate(s);
    const model::Estimate b = model::evaluate(s);
    CHECK(test::same_estimate(a, b));
    model::evaluate_into(s, reused);
    CHECK(test::same_estimate(a, reused));
  }
}
