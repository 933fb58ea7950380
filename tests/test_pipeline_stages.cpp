// Uneven pipelines (model/parallel/pipeline_stages.hpp, docs/model.md §5.4): the blocks per rank of Megatron's explicit
// first / last stage counts and of the balanced split (torchtitan; Megatron's embedding / loss accounting), the
// fullest rank's memory, the bubble of unequal ranks, and the consistency rules that guard the split.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "model/parallel/consistency.hpp"
#include "model/step/island_step.hpp"
#include "model/step/layer_cost.hpp"
#include "model/parallel/layout.hpp"
#include "model/memory/memory.hpp"
#include "model/kernels/parameters.hpp"
#include "model/parallel/pipeline_stages.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter;
using model::StageLayers;
using model::StagePosition;

namespace {

model::ModelSpec layers_only(int layers) {
  model::ModelSpec m;
  m.layers = layers;
  return m;
}

model::PlanSpec pipeline(int pp, int v = 1, int embedding = 0, int head = 0) {
  model::PlanSpec p;
  p.pp = pp;
  p.interleave = v;
  p.pp_embedding_layers = embedding;
  p.pp_head_layers = head;
  return p;
}

// Llama 3 405B dimensions (126 layers) on 8192 H100s: tp 8, pp 16, dp 64, one micro-batch of 8192 tokens.
model::Scenario llama405b_pp16(int v, int embedding, int head) {
  model::Scenario s{};
  model::ModelSpec& m = s.model;
  m.layers = 126; m.hidden = 16384; m.heads = 128; m.kv_heads = 8; m.head_dim = 128;
  m.ffn_hidden = 53248; m.vocab = 128256; m.seq_len = 8192;
  m.ffn_type = model::FfnType::swiglu; m.norm = model::NormType::rmsnorm;
  m.position_embedding = model::PositionEmbedding::rope;
  m.bias = false; m.tied_embeddings = false; m.dropout = false;
  s.training.global_batch = 2048;
  s.training.micro_batch = 1;
  s.training.tokens = 1e12;
  s.cluster.islands[0] = test::island(test::h100_sxm(), 8192, 3200);
  s.cluster.island_entries = 1;
  s.plan.tp = 8;
  s.plan.pp = 16;
  s.plan.interleave = v;
  s.plan.pp_embedding_layers = embedding;
  s.plan.pp_head_layers = head;
  s.plan.sequence_parallel = true;
  s.plan.sharding = model::Sharding::zero1;
  s.plan.recompute = model::Recompute::none;
  return s;
}

}  // namespace

TEST_CASE("Llama 3's layout: 126 layers on pp 16 with the embedding and head counted as one layer each") {
  // E = 126 + 1 + 1 = 128 effective layers over 16 stages of 8: rank 0 holds 8 - 1 = 7 blocks and the embedding,
  // ranks 1..14 hold 8, rank 15 holds 8 - 1 = 7 and the head: 7 + 14 x 8 + 7 = 126.
  const StageLayers s = model::stage_layers(layers_only(126), pipeline(16, 1, 1, 1));
  CHECK(s.first == 7);
  CHECK(s.middle == 8);
  CHECK(s.last == 7);
  CHECK(s.fullest() == 8);
  // Interleaved with v = 8 (128 virtual stages of one effective layer): rank 0's first chunk holds only the
  // embedding and rank 15's last only the head (Llama 3 §3.3.2); per rank still 7 / 8 / 7.
  const StageLayers v8 = model::stage_layers(layers_only(126), pipeline(16, 8, 1, 1));
  CHECK(v8.first == 7);
  CHECK(v8.middle == 8);
  CHECK(v8.last == 7);
  CHECK(v8.first_chunk == 0);
  CHECK(v8.last_chunk == 0);
}

TEST_CASE("The balanced split gives the first E % N virtual stages one layer more (torchtitan)") {
  // BLOOM: 70 layers on pp 12, no weights: 70 = 12 x 5 + 10, ranks 0..9 hold 6, ranks 10 and 11 hold 5.
  const StageLayers bloom = model::stage_layers(layers_only(70), pipeline(12));
  CHECK(bloom.first == 6);
  CHECK(bloom.middle == 6);
  CHECK(bloom.last == 5);
  CHECK(model::rank_layers(layers_only(70), pipeline(12), 9) == 6);
  CHECK(model::rank_layers(layers_only(70), pipeline(12), 10) == 5);
  // 126 layers on pp 8 x v 8 = 64 virtual stages: 126 = 64 x 1 + 62, so stages 0..61 hold 2 and 62, 63 hold 1.
  // Rank r holds stages r, r + 8, ..., r + 56: ranks 0..5 all 8 stages below 62 (16 blocks), ranks 6 and 7 lose
  // stage 62 and 63 (15 blocks): 6 x 16 + 2 x 15 = 126.
  const StageLayers v8 = model::stage_layers(layers_only(126), pipeline(8, 8));
  CHECK(v8.first == 16);
  CHECK(v8.middle == 16);
  CHECK(v8.last == 15);
  CHECK(model::rank_layers(layers_only(126), pipeline(8, 8), 5) == 16);
  CHECK(model::rank_layers(layers_only(126), pipeline(8, 8), 6) == 15);
  // An even split stays even: 96 layers on pp 4 x v 3, 8 per virtual stage, 24 per rank.
  const StageLayers even = model::stage_layers(layers_only(96), pipeline(4, 3));
  CHECK(even.first == 24);
  CHECK(even.middle == 24);
  CHECK(even.last == 24);
}

TEST_CASE("Megatron's explicit first and last stages: the rest split evenly over the other ranks") {
  model::PlanSpec p = pipeline(16);
  p.pp_first_stage_layers = 7;
  p.pp_last_stage_layers = 7;
  // 126 - 7 - 7 = 112 layers over 14 middle ranks: 8 each.
  StageLayers s = model::stage_layers(layers_only(126), p);
  CHECK(s.first == 7);
  CHECK(s.middle == 8);
  CHECK(s.last == 7);
  // Only the last set (Megatron's DeepSeek-style small last stage): 61 layers on pp 4, last 13: 48 / 3 = 16.
  p = pipeline(4);
  p.pp_last_stage_layers = 13;
  s = model::stage_layers(layers_only(61), p);
  CHECK(s.first == 16);
  CHECK(s.middle == 16);
  CHECK(s.last == 13);
  // pp 2 with the first set: the last rank takes the rest, 80 - 30 = 50.
  p = pipeline(2);
  p.pp_first_stage_layers = 30;
  s = model::stage_layers(layers_only(80), p);
  CHECK(s.first == 30);
  CHECK(s.middle == 0);
  CHECK(s.last == 50);
}

TEST_CASE("Every rank's blocks add up to the model's layers (property)") {
  std::mt19937 rng(9);
  for (int i = 0; i < 2000; ++i) {
    const int layers = 1 + static_cast<int>(rng() % 200);
    const int pp = 2 + static_cast<int>(rng() % 31);
    const int v = 1 + static_cast<int>(rng() % 4);
    model::PlanSpec p = pipeline(pp, v, static_cast<int>(rng() % 3), static_cast<int>(rng() % 3));
    if (rng() % 3 == 0) {
      p.pp_embedding_layers = p.pp_head_layers = 0;
      p.pp_first_stage_layers = 1 + static_cast<int>(rng() % 10);
      p.pp_last_stage_layers = static_cast<int>(rng() % 10);
    }
    model::Scenario s{};
    s.model = layers_only(layers);
    s.model.heads = s.model.kv_heads = 8;
    s.model.ffn_hidden = 64;
    s.model.seq_len = 64;
    s.plan = p;
    s.plan.tp = 1;
    s.cluster.island_entries = 1;
    s.cluster.islands[0].gpus = pp * 8;
    s.cluster.islands[0].gpus_per_node = 8;
    s.cluster.islands[0].count = 1;
    s.training.micro_batch = 1;
    s.training.global_batch = 8 * pp;
    const model::Violation violation = model::check_consistency(s);
    if (violation.reason == model::RejectReason::layers_not_divisible_by_pipeline ||
        violation.reason == model::RejectReason::pipeline_split_invalid)
      continue;   // a split no framework runs
    INFO("layers " << layers << " pp " << pp << " v " << v << " e/h " << p.pp_embedding_layers << "/"
                   << p.pp_head_layers << " first/last " << p.pp_first_stage_layers << "/" << p.pp_last_stage_layers);
    int total = 0, fullest = 0;
    for (int r = 0; r < pp; ++r) {
      const int n = model::rank_layers(s.model, p, r);
      CHECK(n >= 0);
      total += n;
      fullest = std::max(fullest, n);
    }
    CHECK(total == layers);
    CHECK(model::stage_layers(s.model, p).fullest() == fullest);   // rank 1 is the fullest middle rank
  }
}

TEST_CASE("The split rules follow torchtitan and Megatron, and blame the key to change") {
  model::Scenario s = llama405b_pp16(1, 1, 1);
  REQUIRE_FALSE(model::check_consistency(s));
  // Interleaving needs no divisibility: v 3 gives 48 virtual stages of 2 or 3 effective layers (128 = 48 x 2 + 32).
  s.plan.interleave = 3;
  s.training.global_batch = 3072;   // 48 micro-batches per replica, a multiple of pp
  CHECK_FALSE(model::check_consistency(s));
  s.plan.interleave = 2;
  s.training.global_batch = 2048;
  CHECK_FALSE(model::check_consistency(s));
  // More virtual stages than the 128 effective layers: 16 x 16 = 256.
  s.plan.interleave = 16;
  model::Violation v = model::check_consistency(s);
  CHECK(v.reason == model::RejectReason::layers_not_divisible_by_pipeline);
  CHECK(v.field == model::FieldId::plan_interleave);
  // The embedding may weigh at most a stage's 128 / 16 = 8 effective layers (136 / 16 = 8 with a weight of 9).
  s = llama405b_pp16(1, 9, 1);
  v = model::check_consistency(s);
  CHECK(v.reason == model::RejectReason::pipeline_split_invalid);
  CHECK(v.field == model::FieldId::plan_pp_embedding_layers);
  // Megatron: explicit counts and the embedding accounting exclude each other.
  s = llama405b_pp16(1, 1, 0);
  s.plan.pp_first_stage_layers = 7;
  v = model::check_consistency(s);
  CHECK(v.reason == model::RejectReason::pipeline_split_invalid);
  CHECK(v.field == model::FieldId::plan_pp_embedding_layers);
  CHECK(v.other == model::FieldId::plan_pp_first_stage_layers);
  // first + last > layers.
  s = llama405b_pp16(1, 0, 0);
  s.plan.pp_first_stage_layers = 100;
  s.plan.pp_last_stage_layers = 30;
  v = model::check_consistency(s);
  CHECK(v.reason == model::RejectReason::pipeline_split_invalid);
  CHECK(v.field == model::FieldId::plan_pp_first_stage_layers);
  CHECK(v.other == model::FieldId::model_layers);
  // The rest must split evenly: 126 - 6 - 6 = 114 over 14 ranks is not whole.
  s.plan.pp_first_stage_layers = 6;
  s.plan.pp_last_stage_layers = 6;
  v = model::check_consistency(s);
  CHECK(v.reason == model::RejectReason::pipeline_split_invalid);
  CHECK(v.other == model::FieldId::model_layers);
  // 7 / 8 / 7 with v 2: 7 is not divisible by 2 (Megatron: "number of layers at first stage ... must be divisible
  // by virtual pipeline parallel degree").
  s.plan.pp_first_stage_layers = 7;
  s.plan.pp_last_stage_layers = 7;
  REQUIRE_FALSE(model::check_consistency(s));
  s.plan.interleave = 2;
  v = model::check_consistency(s);
  CHECK(v.reason == model::RejectReason::pipeline_split_invalid);
  CHECK(v.field == model::FieldId::plan_pp_first_stage_layers);
  CHECK(v.other == model::FieldId::plan_interleave);
  // Explicit counts need a pipeline.
  s = llama405b_pp16(1, 0, 0);
  s.plan.pp = 1;
  s.plan.tp = 8;
  s.plan.pp_first_stage_layers = 7;
  v = model::check_consistency(s);
  CHECK(v.reason == model::RejectReason::pipeline_split_invalid);
  CHECK(v.other == model::FieldId::plan_pp);
}

TEST_CASE("The fullest rank's memory: rank 1's eight blocks with fifteen micro-batches outweigh rank 0's seven") {
  const model::Scenario s = llama405b_pp16(1, 1, 1);
  const model::IslandLayout l = model::make_layout(s.cluster.islands[0], s.plan);
  const model::ParameterCounts params = model::count_parameters(s.model);
  const model::MemoryBreakdown first = model::stage_memory(s, l, params, 32, StagePosition::first);
  const model::MemoryBreakdown middle = model::stage_memory(s, l, params, 32, StagePosition::middle);
  const model::MemoryBreakdown last = model::stage_memory(s, l, params, 32, StagePosition::last);
  // 1F1B: rank 0 keeps 16 micro-batches of 7 blocks (112 block-activations), rank 1 keeps 15 of 8 (120), rank 15
  // one of 7.
  const double per_block = model::layer_activation_bytes(s.model, s.plan, 1);
  CHECK(first.activations_bytes == Approx(112 * per_block));
  CHECK(middle.activations_bytes == Approx(120 * per_block));
  CHECK(last.activations_bytes == Approx(7 * per_block));
  // bf16 weights after tp 8: rank 0 its 7 blocks and the embedding, rank 1 its 8 blocks.
  CHECK(first.weights_bytes == Approx(2.0 * (7 * params.layer + params.embedding) / 8));
  CHECK(middle.weights_bytes == Approx(2.0 * 8 * params.layer / 8));
  // The island's memory is the largest rank's.
  const model::IslandStep st = model::island_step(s, s.cluster.islands[0], params, 32, model::WanTraffic{});
  CHECK(st.memory_bytes == Approx(std::max({first.total(), middle.total(), last.total()})));

  // Interleaved, v 8: rank r holds 2 (p - r - 1) + (v - 1) p + 1 chunk micro-batches of 1/8 of its blocks:
  // rank 0 (30 + 112 + 1) / 8 = 17.875 stages of 7 blocks, rank 1 (28 + 112 + 1) / 8 = 17.625 of 8 blocks,
  // rank 15 (0 + 112 + 1) / 8 = 14.125 of 7 blocks.
  const model::Scenario v8 = llama405b_pp16(8, 1, 1);
  const model::MemoryBreakdown first8 = model::stage_memory(v8, l, params, 32, StagePosition::first);
  const model::MemoryBreakdown middle8 = model::stage_memory(v8, l, params, 32, StagePosition::middle);
  const model::MemoryBreakdown last8 = model::stage_memory(v8, l, params, 32, StagePosition::last);
  CHECK(first8.activations_bytes == Approx(7 * 17.875 * per_block));
  CHECK(middle8.activations_bytes == Approx(8 * 17.625 * per_block));
  CHECK(last8.activations_bytes == Approx(7 * 14.125 * per_block));
}

TEST_CASE("The bubble of unequal ranks is sum(t_r) - max(t_r), over v when interleaved (Alpa eq. 2)") {
  for (int v : {1, 8}) {
    model::Scenario s = llama405b_pp16(v, 1, 1);
    s.model.vocab = 8;   // the output layer costs next to nothing: rank 15 (7 blocks) is not the slowest
    const model::IslandLayout l = model::make_layout(s.cluster.islands[0], s.plan);
    const model::ParameterCounts params = model::count_parameters(s.model);
    const model::IslandStep st = model::island_step(s, s.cluster.islands[0], params, 32, model::WanTraffic{});
    const model::LayerCost lc = model::layer_cost(s.model, s.cluster.islands[0].gpu, s.plan, s.training.precision, 1, l);
    // u: one block's forward + backward (no recompute); ranks take 7u + k, 8u + k (x 14), 7u + k + logits, where k
    // is the p2p and exposed DP per micro-batch. sum = 126u + 16k + logits, max = 8u + k, so
    // bubble = (118u + 15k + logits) / v = (15 max - 2u + logits) / v.
    const double u = lc.forward.compute_s() + lc.backward.compute_s() + lc.forward.memory_s + lc.backward.memory_s +
                     lc.forward.tp_comm_s + lc.backward.tp_comm_s + lc.recompute.compute_s() + lc.recompute.memory_s +
                     lc.recompute.tp_comm_s;   // recompute: none leaves the last three at 0
    const model::PassCost logits = model::logits_cost(s.model, s.cluster.islands[0].gpu, s.training.precision, 1, l);
    REQUIRE(logits.total_s() < u);
    INFO("v " << v);
    // The slowest rank's micro-batch without the slowest-rank wait (docs/model.md §5.6), which is not in the bubble.
    const double slowest = st.stage_microbatch_s - st.time.straggler_s / st.microbatches;
    CHECK(st.time.bubble_s == Approx((15 * slowest - 2 * u + logits.total_s()) / v));
  }
}

TEST_CASE("Counting the embedding as a layer takes one block off rank 0 (Llama 3 405B on pp 16)") {
  // Without weights 126 = 16 x 7 + 14: ranks 0..13 hold 8, ranks 14 and 15 hold 7. With both weights rank 0 holds
  // 7 next to the embedding (and rank 15 7 next to the head): rank 0 keeps one block's weights and 16 micro-batches
  // of its activations fewer.
  const model::Scenario plain = llama405b_pp16(1, 0, 0);
  const model::Scenario weighted = llama405b_pp16(1, 1, 1);
  const model::IslandLayout l = model::make_layout(plain.cluster.islands[0], plain.plan);
  const model::ParameterCounts params = model::count_parameters(plain.model);
  const double per_block = model::layer_activation_bytes(plain.model, plain.plan, 1);
  const model::MemoryBreakdown a = model::stage_memory(plain, l, params, 32, StagePosition::first);
  const model::MemoryBreakdown b = model::stage_memory(weighted, l, params, 32, StagePosition::first);
  CHECK(a.activations_bytes - b.activations_bytes == Approx(16 * per_block));
  CHECK(a.weights_bytes - b.weights_bytes == Approx(2.0 * params.layer / 8));
}
