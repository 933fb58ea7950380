// The data-parallel degrees the model stores with every estimate (model::Estimate::degrees and per island), which
// result files carry as columns and the export reads: small plans whose degrees can be counted by hand.
#include <catch2/catch.hpp>

#include "model/job/evaluate.hpp"
#include "model/parallel/layout.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter;
using model::Sharding;

TEST_CASE("One island: replicas, ZeRO groups and micro-batches per replica") {
  // GPT-3 on 1536 A100s, tp 8 x pp 12: 1536 / 96 = 16 replicas; global batch 1536 at micro-batch 1: 1536 / 16 = 96
  // micro-batches per replica. ZeRO-1 shards over all 16 replicas.
  model::Scenario s = test::gpt3_on_a100();
  s.plan.sharding = Sharding::zero1;
  const model::Estimate e = model::evaluate(s);
  REQUIRE(e.reject_reason == model::RejectReason::none);
  CHECK(e.degrees.data_parallel == 16);
  CHECK(e.degrees.dp_shard == 16);
  CHECK(e.degrees.dp_replicate == 1);
  CHECK(e.degrees.microbatches == 96);
  const model::DataParallelDegrees& island = e.islands[0].degrees;
  CHECK(island.data_parallel == 16);
  CHECK(island.dp_shard == 16);
  CHECK(island.dp_replicate == 1);
  CHECK(island.microbatches == 96);

  // Without sharding there is no shard group: every replica is a replica.
  s.plan.sharding = Sharding::none;
  const model::Estimate ddp = model::evaluate(s);
  CHECK(ddp.degrees.dp_shard == 1);
  CHECK(ddp.degrees.dp_replicate == 16);
  CHECK(ddp.islands[0].degrees.dp_shard == 1);
}

TEST_CASE("HSDP: shard groups of one node, replicated across nodes") {
  // Llama-3-8B on 64 GPUs, tp 2: 32 replicas. The default shard group is one node of 8 GPUs = 4 TP groups, so
  // 32 replicas = 4 shards x 8 replicas of the shard group. Batch 256 at micro-batch 2: 256 / (2 x 32) = 4.
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64);
  s.plan.sharding = Sharding::hsdp;
  s.plan.tp = 2;
  const model::Estimate e = model::evaluate(s);
  REQUIRE(e.reject_reason == model::RejectReason::none);
  CHECK(e.degrees.data_parallel == 32);
  CHECK(e.degrees.dp_shard == 4);
  CHECK(e.degrees.dp_replicate == 8);
  CHECK(e.degrees.microbatches == 4);
  CHECK(e.islands[0].degrees.dp_shard == 4);
  // A shard group of 32 GPUs: 16 replicas per shard group, 2 groups.
  s.plan.shard_group = 32;
  const model::Estimate wide = model::evaluate(s);
  CHECK(wide.degrees.dp_shard == 16);
  CHECK(wide.degrees.dp_replicate == 2);
}

TEST_CASE("Synchronous islands form one job; DiLoCo islands each run their own") {
  // Two islands of 64 GPUs, tp 8: 8 replicas each. Synchronous: one job of 16 replicas on 512 sequences at
  // micro-batch 2: 512 / (2 x 16) = 16 micro-batches per replica. ZeRO-1 shards over the job's 16.
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64);
  s.cluster.islands[0].count = 2;
  s.cluster.wan.bytes_per_s = 100e9 / 8;
  s.cluster.wan.efficiency = 0.7;
  s.cluster.wan.latency_s = 0.03;
  s.cluster.has_wan = true;
  s.plan.tp = 8;
  s.plan.sharding = Sharding::zero1;
  s.training.global_batch = 512;
  const model::Estimate sync = model::evaluate(s);
  REQUIRE(sync.reject_reason == model::RejectReason::none);
  CHECK(sync.degrees.data_parallel == 16);
  CHECK(sync.degrees.dp_shard == 16);
  CHECK(sync.degrees.microbatches == 16);
  CHECK(sync.islands[0].degrees.data_parallel == 8);   // per island
  CHECK(sync.islands[0].degrees.microbatches == 16);

  // DiLoCo: each island trains 512 / 2 = 256 sequences per inner step with its own 8 replicas: 256 / (2 x 8) = 16.
  s.plan.sync = model::SyncMode::diloco;
  const model::Estimate diloco = model::evaluate(s);
  REQUIRE(diloco.reject_reason == model::RejectReason::none);
  CHECK(diloco.degrees.data_parallel == 8);
  CHECK(diloco.degrees.dp_shard == 8);
  CHECK(diloco.degrees.dp_replicate == 1);
  CHECK(diloco.degrees.microbatches == 16);
}

TEST_CASE("An inconsistent plan has no degrees") {
  model::Scenario s = test::gpt3_on_a100(1536, 7, 12);   // tp 7 divides neither the heads nor the GPUs
  const model::Estimate e = model::evaluate(s);
  CHECK(e.reject_reason != model::RejectReason::none);
  CHECK(e.degrees.data_parallel == 0);
  CHECK(e.islands[0].degrees.data_parallel == 0);
}
