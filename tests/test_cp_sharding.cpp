// Context parallelism in ZeRO/FSDP sharding and gradient reduction (docs/model.md §6.1, §7.1; issue 9 item 5):
// the CP ranks of a replica hold the same parameters, so gradients reduce and model states shard over dp x cp
// ranks, as Megatron-Core (get_data_parallel_group(with_context_parallel=True)) and torchtitan (dp_shard_cp) do.
#include <catch2/catch.hpp>

#include "model/job/evaluate.hpp"
#include "model/kernels/kernel_time.hpp"
#include "model/parallel/layout.hpp"
#include "model/memory/memory.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter;
using model::Sharding;
using model::StagePosition;

namespace {

// Llama-3-8B (test::llama3_8b): per block 4096*4096*2 (q, o) + 4096*1024*2 (k, v) + 3*4096*14336 (SwiGLU) +
// 2*4096 (norms) = 218,112,000; 32 blocks = 6,979,584,000; embedding = head = 128256*4096 = 525,336,576.
// The DP traffic counts the blocks, embedding and head of the only stage: 8,030,257,152 parameters.
constexpr double kLlama8bDpParams = 8'030'257'152.0;

double model_states(const model::MemoryBreakdown& m) { return m.weights_bytes + m.gradients_bytes + m.optimizer_bytes; }

model::MemoryBreakdown only_stage(const model::Scenario& s) {
  return model::stage_memory(s, model::make_layout(s.cluster.islands[0], s.plan), model::count_parameters(s.model), 1,
                             s.plan.pp > 1 ? StagePosition::first : StagePosition::only);
}

// Llama 3 405B as the Llama 3 paper (arXiv 2407.21783, Table 3/4) trained it at 128K context.
model::ModelSpec llama3_405b_131k() {
  model::ModelSpec m = test::llama3_8b();
  m.layers = 126; m.hidden = 16384; m.heads = 128; m.kv_heads = 8; m.head_dim = 128;
  m.ffn_hidden = 53248; m.vocab = 128256; m.seq_len = 131072;
  return m;
}

}  // namespace

TEST_CASE("The dp x cp group: CP ranks join the gradient reduction and the shard groups (rank order tp, cp, dp)") {
  // 64 GPUs in nodes of 8, tp 2, cp 2: dp = 64 / 4 = 16, dp x cp = 32 ranks, 2 apart (each TP rank's own).
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64, 1);
  s.model.seq_len = 8192;
  s.plan.tp = 2;
  s.plan.cp = 2;
  s.plan.sharding = Sharding::zero1;
  model::IslandLayout l = model::make_layout(s.cluster.islands[0], s.plan);
  CHECK(l.dp == 16);
  CHECK(l.dp_cp == 32);
  CHECK(l.dp_shard == 16);      // DP ranks (torchtitan's data_parallel_shard_degree)
  CHECK(l.state_shards == 32);  // the states shard over dp x cp
  // 32 ranks 2 apart in nodes of 8 GPUs: 8 / 2 = 4 per node, 32 / 4 = 8 nodes.
  CHECK(l.dp_cp_group.per_node == 4);
  CHECK(l.dp_cp_group.nodes == 8);
  CHECK(l.shard_group.per_node == 4);
  CHECK(l.shard_group.nodes == 8);
  // The DP-only group (ranks tp x cp = 4 apart) is unchanged: 2 per node over 8 nodes.
  CHECK(l.dp_group.per_node == 2);
  CHECK(l.dp_group.nodes == 8);

  // HSDP, shard group of one node (8 GPUs): 8 / (tp x cp) = 2 DP ranks x cp 2 = 4 state shards in one node;
  // 16 / 2 = 8 replicas, tp x cp x dp_shard = 8 ranks apart: one per node.
  s.plan.sharding = Sharding::hsdp;
  l = model::make_layout(s.cluster.islands[0], s.plan);
  CHECK(l.dp_shard == 2);
  CHECK(l.state_shards == 4);
  CHECK(l.shard_group.per_node == 4);
  CHECK(l.shard_group.nodes == 1);
  CHECK(l.dp_replicate == 8);
  CHECK(l.replicate_group.per_node == 1);
  CHECK(l.replicate_group.nodes == 8);

  // Without sharding the states are whole on every GPU; gradients still reduce over dp x cp.
  s.plan.sharding = Sharding::none;
  l = model::make_layout(s.cluster.islands[0], s.plan);
  CHECK(l.state_shards == 1);
  CHECK(l.dp_cp == 32);
}

TEST_CASE("ZeRO stages shard model states over dp x cp (Megatron-Core distributed optimizer, torchtitan FSDP)") {
  // Llama-3-8B on 64 GPUs, tp 1, cp 4: dp = 16, so the states shard over N = 16 x 4 = 64 ranks (they sharded over
  // 16 before CP counted). Model states per parameter: zero1 2 + 2 + 12/64 = 4.1875; zero2 2 + 14/64 = 2.21875;
  // fsdp 16/64 = 0.25; hsdp with one node per shard group: 8 GPUs / (tp x cp) = 2 DP ranks x 4 = 8 shards,
  // 16/8 = 2.
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64, 1);
  s.plan.cp = 4;
  const double p = model::count_parameters(s.model).total;  // one stage: every parameter
  s.plan.sharding = Sharding::zero1;
  CHECK(model_states(only_stage(s)) == Approx(4.1875 * p));
  s.plan.sharding = Sharding::zero2;
  CHECK(model_states(only_stage(s)) == Approx(2.21875 * p));
  s.plan.sharding = Sharding::fsdp;
  CHECK(model_states(only_stage(s)) == Approx(0.25 * p));
  s.plan.sharding = Sharding::hsdp;
  CHECK(model_states(only_stage(s)) == Approx(2.0 * p));
  s.plan.sharding = Sharding::none;
  CHECK(model_states(only_stage(s)) == Approx(16.0 * p));
}

TEST_CASE("Llama 3 405B with CP 16 fits as it ran (Llama 3 paper Table 4: 16384 GPUs, TP 8, CP 16, PP 16, DP 8)") {
  model::Scenario s{};
  s.model = llama3_405b_131k();
  s.training.global_batch = 128;  // 16M tokens
  s.training.micro_batch = 1;
  s.training.tokens = 1e12;
  s.cluster.islands[0] = test::island(test::h100_sxm(), 16384, 3200);
  s.cluster.island_entries = 1;
  s.plan.tp = 8;
  s.plan.pp = 16;
  s.plan.cp = 16;
  s.plan.sequence_parallel = true;
  s.plan.sharding = Sharding::zero2;
  s.plan.recompute = model::Recompute::none;
  const model::IslandLayout l = model::make_layout(s.cluster.islands[0], s.plan);
  REQUIRE(l.dp == 8);
  REQUIRE(l.state_shards == 128);
  // First stage: ceil(126 / 16) = 8 blocks + the embedding, over TP 8. Per block: 16384*16384*2 (q, o) +
  // 16384*1024*2 (k, v) + 3*16384*53248 + 2*16384 = 536,870,912 + 33,554,432 + 2,617,245,696 + 32,768 =
  // 3,187,703,808; embedding 128256*16384 = 2,101,346,304. Stage: 8 * 3,187,703,808 + 2,101,346,304 =
  // 27,602,976,768 parameters, 3,450,372,096 per GPU. ZeRO-2 over 128 ranks: 2 + 14/128 = 2.109375 bytes per
  // parameter = 7,278,128,640 bytes (over DP 8 alone it was 2 + 14/8 = 3.75 bytes, 12.94 GB).
  const model::MemoryBreakdown first = model::stage_memory(s, l, model::count_parameters(s.model), 16, StagePosition::first);
  CHECK(model_states(first) == Approx(7'278'128'640.0));
  const model::Estimate e = model::evaluate(s);
  REQUIRE(e.reject_reason == model::RejectReason::none);
  CHECK(e.feasible);
}

TEST_CASE("Gradients reduce over the dp x cp ranks even when dp = 1 (hand-worked collectives)") {
  // One node of 8 H100s, tp 4, cp 2: dp = 1, so before CP counted there was no gradient reduction at all.
  // DDP all-reduce over the 2 CP ranks, 4 apart inside the node: one NVLink ring of 2. Gradient bytes per GPU:
  // 8,030,257,152 / 4 x 2 = 4,015,128,576. NVLink 450 GB/s x 0.8 = 360 GB/s, 2 us per hop:
  // 2 x 1 x 2e-6 + 2 x (1/2) x 4,015,128,576 / 360e9 = 4e-6 + 0.0111531349 = 0.0111571349 s, all exposed without
  // overlap.
  model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), 8, 1);
  s.plan.sharding = Sharding::none;
  s.plan.tp = 4;
  s.plan.cp = 2;
  s.plan.sequence_parallel = true;
  s.plan.overlap_grad_reduce = false;
  const model::Estimate ddp = model::evaluate(s);
  REQUIRE(ddp.reject_reason == model::RejectReason::none);
  // Plus NCCL's ring/Simple base latency, 8.4 µs per collective (docs/model.md §3.5).
  CHECK(ddp.time.dp_comm_s == Approx(8.4e-6 + 4e-6 + 2.0 * 0.5 * (kLlama8bDpParams / 4 * 2) / 360e9));
  CHECK(ddp.time.dp_comm_s == Approx(0.0111655349).epsilon(1e-6));

  // tp 8, cp 1 on the same node: dp = 1 and nothing to reduce.
  s.plan.tp = 8;
  s.plan.cp = 1;
  CHECK(model::evaluate(s).time.dp_comm_s == 0.0);

  // Two nodes, tp 8, cp 2: the 2 CP ranks sit 8 apart, one per node, so ZeRO-1's reduce-scatter and all-gather
  // are flat rings of 2 over the NICs: 3200 Gb/s per node x 0.8 / 8 GPUs = 40 GB/s per GPU, 5 us. Each moves
  // 8,030,257,152 / 8 x 2 = 2,007,564,288 bytes: 5e-6 + (1/2) x 2,007,564,288 / 40e9 = 0.0250995536 s; both
  // exposed without overlap: 0.0501991072 s.
  model::Scenario z = test::llama8b_fsdp(test::h100_sxm(), 16, 1);
  z.plan.sharding = Sharding::zero1;
  z.plan.tp = 8;
  z.plan.cp = 2;
  z.plan.sequence_parallel = true;
  z.plan.overlap_grad_reduce = false;
  z.plan.overlap_param_gather = false;
  const model::Estimate zero1 = model::evaluate(z);
  REQUIRE(zero1.reject_reason == model::RejectReason::none);
  // Each with NCCL's 8.4 µs ring/Simple base latency (docs/model.md §3.5).
  CHECK(zero1.time.dp_comm_s == Approx(2.0 * (8.4e-6 + 5e-6 + 0.5 * (kLlama8bDpParams / 8 * 2) / 40e9)));
  CHECK(zero1.time.dp_comm_s == Approx(0.0502159072).epsilon(1e-6));
  // The optimizer updates 1/(dp x cp) = 1/2 of the GPU's parameters: 1,003,782,144 / 2 x 28 bytes (AdamW on the
  // default megatron_te stack with bf16 main gradients: 2 + 10 + 16, §2.7) in 4 kernels.
  CHECK(zero1.time.optimizer_s ==
        Approx(model::memory_bound_time_s(kLlama8bDpParams / 8 / 2 * 28.0, 4.0, z.cluster.islands[0].gpu)));
}

TEST_CASE("More CP with the same DP never means more model-state memory per GPU") {
  for (Sharding sh : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::fsdp, Sharding::hsdp}) {
    for (int tp : {1, 2}) {
      for (int dp : {1, 2, 8}) {
        double previous = 1e300;
        for (int cp : {1, 2, 4, 8}) {
          model::Scenario s = test::llama8b_fsdp(test::h100_sxm(), tp * cp * dp, 1);
          s.model.seq_len = 65536;  // splits into 2 x cp chunks for every cp here
          s.plan.sharding = sh;
          s.plan.tp = tp;
          s.plan.cp = cp;
          s.plan.shard_group = sh == Sharding::hsdp ? tp * cp : 0;  // one DP rank x cp per shard group
          const model::IslandLayout l = model::make_layout(s.cluster.islands[0], s.plan);
          REQUIRE(l.dp == dp);
          const double states = model_states(only_stage(s));
          CHECK(states <= previous * (1 + 1e-12));
          if (sh == Sharding::none) CHECK(states == Approx(16.0 * model::count_parameters(s.model).total / tp));
          previous = states;
        }
      }
    }
  }
}
