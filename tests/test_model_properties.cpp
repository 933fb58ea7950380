#include <catch2/catch.hpp>

#include <vector>

#include "model/evaluate.hpp"
#include "model_fixtures.hpp"

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
  for (const model::Scenario& base : plan_zoo()) {
    model::Scenario s = base;
    s.plan.recompute = Recompute::none;
    const double none = model::evaluate(s).step_time_s;
    s.plan.recompute = Recompute::full;
    CHECK(model::evaluate(s).step_time_s >= none);
  }
}

TEST_CASE("Evaluation is pure: same input, same bytes out") {
  for (const model::Scenario& s : plan_zoo()) {
    const model::Estimate a = model::evaluate(s);
    const model::Estimate b = model::evaluate(s);
    CHECK(a.step_time_s == b.step_time_s);
    CHECK(a.memory_per_gpu_bytes == b.memory_per_gpu_bytes);
  }
}
