// Mixture of experts and multi-head latent attention (docs/model.md §15): parameter counts, FLOPs, token dispatch
// bytes, expert memory and the expert-parallel consistency rules, on tiny models checkable by hand and on the
// shipped presets against their published counts.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "catalog_fixture.hpp"
#include "model/parallel/consistency.hpp"
#include "model/comm/contention.hpp"
#include "model/job/evaluate.hpp"
#include "model/kernels/flops.hpp"
#include "model/parallel/fp8.hpp"
#include "model/kernels/kernel_time.hpp"
#include "model/step/layer_cost.hpp"
#include "model/parallel/layout.hpp"
#include "model/kernels/mla.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/moe/moe_cost.hpp"
#include "model/memory/memory.hpp"
#include "model/memory/moe_memory.hpp"
#include "model/kernels/parameters.hpp"
#include "model_fixtures.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter::cli;
namespace m = shardmeter::model;

namespace {

// h 8, 2 heads of 4 (MHA), SwiGLU, 4 blocks: the first dense (ffn 16), three MoE blocks with 4 routed experts of
// width 6, top-2, one shared expert of width 6; vocab 10, untied, RMSNorm, no biases.
m::ModelSpec tiny_moe() {
  m::ModelSpec s;
  s.layers = 4; s.hidden = 8; s.heads = 2; s.kv_heads = 2; s.head_dim = 4; s.ffn_hidden = 16;
  s.vocab = 10; s.seq_len = 16;
  s.ffn_type = m::FfnType::swiglu; s.norm = m::NormType::rmsnorm; s.position_embedding = m::PositionEmbedding::rope;
  s.bias = false; s.tied_embeddings = false; s.dropout = false;
  s.moe.experts = 4; s.moe.top_k = 2; s.moe.shared_experts = 1;
  s.moe.expert_ffn_hidden = 6; s.moe.shared_expert_ffn_hidden = 6; s.moe.dense_layers = 1;
  return s;
}

m::ModelSpec preset_model(const std::string& name) {
  const ScenarioDocument doc = scenario_document_from_text(
      "preset-test",
      "{name: t, model: {preset: " + name + "}, training: {global_batch: 1}, cluster: {islands: [{gpu: h100-sxm, gpus: 8}]}}");
  return parse_scenario(doc, shardmeter::test::shipped_catalog()).model;
}

m::Scenario tiny_scenario(int ep) {
  m::Scenario s{};
  s.model = tiny_moe();
  s.training.global_batch = 16;
  s.training.micro_batch = 2;
  s.cluster.islands[0] = shardmeter::test::island(shardmeter::test::h100_sxm(), 8);
  s.cluster.island_entries = 1;
  s.plan.ep = ep;
  return s;
}

}  // namespace

TEST_CASE("MoE parameters: dense and MoE blocks, routed, shared and router, total and active") {
  const m::ParameterCounts p = m::count_parameters(tiny_moe());
  // Attention 8*8 + 2*8*8 + 8*8 = 256 and two norms 16 per block; dense MLP 3*8*16 = 384 in block 0; each MoE block
  // a router 4*8 = 32, a shared expert 3*8*6 = 144 and 4 experts of 144: 752. Embedding and head 80 each, norm 8.
  // Total 4*272 + 384 + 3*752 + 80 + 80 + 8 = 3896; active drops 3 blocks x 2 unused experts x 144 = 864.
  CHECK(p.total == 3896.0);
  CHECK(p.active == 3032.0);
  CHECK(p.expert_layer == 3.0 * 4 * 144 / 4);  // per block, averaged over the 4 blocks: 432
  // A token passes attention 256 and, averaged per block, (384 + 3 x (2 + 1) x 144) / 4 = 420 of MLP matrices.
  CHECK(p.layer_matmul == 676.0);
}

TEST_CASE("MLA projections: query and key/value latents, decoupled rope, value heads") {
  m::ModelSpec s = tiny_moe();
  s.mla.q_lora_rank = 5; s.mla.kv_lora_rank = 6; s.mla.rope_head_dim = 2; s.mla.v_head_dim = 3;
  // wq_a 8*5 = 40, wq_b 5*2*(4+2) = 60, wkv_a 8*(6+2) = 64, wkv_b 6*2*(4+3) = 84, wo 2*3*8 = 48: 296.
  CHECK(m::attention_matmul_params(s) == 296.0);
  CHECK(m::mla_norm_params(s) == 11.0);
  s.mla.q_lora_rank = 0;  // wq 8*2*6 = 96 instead of 40 + 60
  CHECK(m::attention_matmul_params(s) == 296.0 - 100 + 96);
}

TEST_CASE("Mixtral 8x7B and DeepSeek-V3 reproduce their published totals to the parameter") {
  // Worked from the configs (docs/model.md §15.1): Mixtral 32 x (41,943,040 + 4 x 4096 + 32,768 + 8 x 176,160,768)
  // + 2 x 131,072,000 + 4096; active keeps 2 of 8 experts.
  const m::ParameterCounts mixtral = m::count_parameters(preset_model("mixtral-8x7b"));
  CHECK(mixtral.total == 46702792704.0);
  CHECK(mixtral.active == 12879925248.0);
  // DeepSeek-V3: 61 MLA blocks of 187,107,328 (+ norms), 3 dense MLPs of 396,361,728, 58 MoE blocks of 256 + 1
  // experts of 44,040,192 and a 256 x 7168 (+256 bias) router, embedding and head 926,679,040 each.
  const m::ParameterCounts dsv3 = m::count_parameters(preset_model("deepseek-v3"));
  CHECK(dsv3.total == 671026419200.0);
  CHECK(dsv3.active == 37552297472.0);
}

// Published active counts follow two conventions: with every parameter a token touches (Mixtral, Qwen3), or without
// the input embedding table, a lookup (gpt-oss's model card; DeepSeek-V3's README_WEIGHTS 36.7B, which the
// arithmetic reproduces only so). Within 1 %, except Qwen3-30B-A3B: 3.353B computed against "3.3B" published with
// two digits (1.6 %; its total, 30.53B against 30.5B, is within 0.1 %).
TEST_CASE("every MoE preset reproduces its published active parameter count") {
  const auto& catalog = shardmeter::test::shipped_catalog();
  int moe_presets = 0;
  for (const std::string& name : catalog.presets.names()) {
    const auto& info = catalog.presets.get(name).info;
    if (info.published_active_b <= 0) continue;
    ++moe_presets;
    const m::ModelSpec model = preset_model(name);
    const m::ParameterCounts p = m::count_parameters(model);
    const double active_b = (p.active - (info.active_excludes_embedding ? p.embedding : 0.0)) / 1e9;
    INFO(name << ": computed " << active_b << " B active, published " << info.published_active_b << " B");
    const double tolerance = name == "qwen3-30b-a3b" ? 0.02 : 0.01;
    CHECK(std::fabs(active_b - info.published_active_b) <= tolerance * info.published_active_b);
  }
  CHECK(moe_presets >= 7);
}

TEST_CASE("MoE model FLOPs follow Megatron-Core: active experts, MLA, no router") {
  // Megatron-Core num_floating_point_operations on DeepSeek-V3 at s = 4096 without MTP: 249.81 GFLOP per token
  // (145.07 MLP + 99.18 attention + 5.56 logits); the formula's "+1" norm terms (6 x 61 x 2048) are left out here.
  const m::ModelSpec dsv3 = preset_model("deepseek-v3");
  CHECK(m::count_flops(dsv3, m::Recompute::none).model_per_sequence / 4096 / 1e9 == Approx(249.81).epsilon(0.001));
  // Mixtral 8x7B: 79.71 GFLOP per token at s = 4096.
  const m::ModelSpec mixtral = preset_model("mixtral-8x7b");
  CHECK(m::count_flops(mixtral, m::Recompute::none).model_per_sequence / 4096 / 1e9 == Approx(79.71).epsilon(0.001));
  // One MTP depth adds an MoE block, its 2h^2 projection and a second output head: 259.99 GFLOP per token.
  m::ModelSpec with_mtp = dsv3;
  with_mtp.mtp_layers = 1;
  CHECK(m::count_flops(with_mtp, m::Recompute::none).model_per_sequence / 4096 / 1e9 == Approx(259.99).epsilon(0.002));
}

TEST_CASE("token dispatch bytes: tokens x top-k x hidden x element, the remote share") {
  m::Scenario s = tiny_scenario(4);
  // micro-batch 2 x 16 tokens = 32 tokens, x 2 copies x 8 x 2 bytes = 1024, 3/4 bound for the other 3 ranks: 768.
  // The same under fp8 training: Megatron-Core dispatches the bf16 hidden states (docs/model.md §15.4).
  CHECK(m::dispatch_bytes(s.model, s.plan, 2) == 768.0);
  s.plan.tp = 2;  // the TP ranks split the tokens (sequence-parallel layout)
  CHECK(m::dispatch_bytes(s.model, s.plan, 2) == 384.0);
}

TEST_CASE("MoE block memory-bound traffic: permutation, router scores and the experts' activation over the routed copies") {
  m::Scenario s = tiny_scenario(4);
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  // By hand, micro-batch 2 x 16 = 32 tokens on the GPU, top-2, h 8, 4 experts of width 6, one shared of width 6:
  //   permute/unpermute (each reads and writes every copy) 2 x 2 x 32 tokens x 2 copies x 8 x 2 bytes = 4096; router scores 3 x 4 bytes x 32 x 4 = 1536;
  //   SwiGLU activation (read 2f, write f) 2 bytes x 3 x (64 routed copies x 6 + 32 tokens x 6 shared) = 3456;
  //   9088 bytes / (3.35e12 x 0.85) + 4 launches x 4 us.
  const m::MoeBlockCost c = m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l);
  CHECK(c.memory_fwd_s == Approx(9088.0 / (3.35e12 * 0.85) + 4 * 4e-6).epsilon(1e-12));
  // Top-4 doubles the routed copies: permute 8192, activation 2 x 3 x (128 x 6 + 192) = 5760, scores unchanged.
  s.model.moe.top_k = 4;
  const m::MoeBlockCost c4 = m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l);
  CHECK(c4.memory_fwd_s == Approx((8192.0 + 1536.0 + 5760.0) / (3.35e12 * 0.85) + 4 * 4e-6).epsilon(1e-12));
}

TEST_CASE("Megatron's alltoall dispatcher sorts the received tokens by local expert and back (Permutation 2)") {
  m::Scenario s = tiny_scenario(2);   // 4 experts over EP 2: 2 local experts
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  const double hbm = 3.35e12 * 0.85, launch = 4e-6;
  // The test above's 9088 bytes and 4 launches (they do not depend on EP), plus sort_chunks_by_idxs after the
  // all-to-all and its inverse before the combine, each reading and writing the 64 routed copies (32 tokens x top-2)
  // of h 8 in bf16: 2 x 2 x 64 x 8 x 2 = 4096 bytes, 2 launches.
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).memory_fwd_s ==
        Approx((9088.0 + 4096.0) / hbm + 6 * launch).epsilon(1e-12));
  // DeepEP permutes once, on the receiving side: no sort.
  s.plan.ep_dispatcher = m::EpDispatcher::deepep;
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).memory_fwd_s ==
        Approx(9088.0 / hbm + 4 * launch).epsilon(1e-12));
  // One local expert (EP 4): nothing to sort (num_local_experts > 1 in Megatron).
  m::Scenario one = tiny_scenario(4);
  const m::IslandLayout l4 = m::make_layout(one.cluster.islands[0], one.plan);
  CHECK(m::moe_block_cost(one.model, gpu, one.plan, m::Precision::bf16, 2, l4).memory_fwd_s ==
        Approx(9088.0 / hbm + 4 * launch).epsilon(1e-12));
  // Not a Megatron stack: its own dispatcher, not charged.
  s.plan.ep_dispatcher = m::EpDispatcher::alltoall;
  s.plan.stack = m::Stack::torch_fsdp2;
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).memory_fwd_s ==
        Approx(9088.0 / hbm + 4 * launch).epsilon(1e-12));
}

TEST_CASE("The experts' own memory-bound kernels: the second permutation, the routed activation, gpt-oss's terms") {
  // The part of memory_fwd_s that runs between dispatch and combine (the combined 1F1B schedule's experts piece,
  // docs/model.md §15.4), in the same forward convention.
  m::Scenario s = tiny_scenario(2);   // 2 local experts, Megatron-Core's alltoall dispatcher
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  const double hbm = 3.35e12 * 0.85, launch = 4e-6;
  // By hand: the sort and its inverse over the 64 routed copies, 2 x 2 x 64 x 8 x 2 = 4096 bytes, 2 launches; the
  // routed SwiGLU (read 2f, write f) 2 bytes x 3 x 64 x 6 = 2304 bytes, 1 launch. Not the router scores (1536), the
  // first permutation (4096) nor the shared expert's activation (1152): the attention piece runs them.
  const m::MoeBlockCost c = m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l);
  CHECK(c.experts_memory_fwd_s == Approx((4096.0 + 2304.0) / hbm + 3 * launch).epsilon(1e-12));
  CHECK(c.experts_memory_fwd_s < c.memory_fwd_s);
  // DeepEP: no sort, the activation alone.
  s.plan.ep_dispatcher = m::EpDispatcher::deepep;
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).experts_memory_fwd_s ==
        Approx(2304.0 / hbm + launch).epsilon(1e-12));
  // gpt-oss's clamp (the test below: 10,752 bytes and 5 kernels over forward + backward) enters at a third.
  s.model.moe.activation_clamp = 7;
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).experts_memory_fwd_s ==
        Approx((2304.0 + 10752.0 / 3) / hbm + (1 + 5.0 / 3) * launch).epsilon(1e-12));
  // The layer's average over its blocks: 3 MoE blocks of 4.
  s.model.moe.activation_clamp = 0;
  const m::LayerCost lc = m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l);
  CHECK(lc.ep_experts_memory_fwd_s == Approx(0.75 * (2304.0 / hbm + launch)).epsilon(1e-12));
}

TEST_CASE("EP overlap windows hold the paired piece's memory-bound kernels and fp8 casts, not its GEMMs alone") {
  // docs/model.md §15.4: each all-to-all hides under a whole piece of another micro-batch's block on the compute
  // stream. Recomputed here from the pieces the estimate reports: qwen3-30b-a3b on 16 H100 (EP 16 over two nodes,
  // every all-to-all partly off-node), no pipeline, 16 micro-batches.
  m::Scenario s = tiny_scenario(16);
  s.model = preset_model("qwen3-30b-a3b");
  s.training.global_batch = 256;
  s.training.micro_batch = 1;
  s.training.precision = m::Precision::fp8;
  s.training.fp8_recipe = m::Fp8Recipe::current;
  s.cluster.islands[0] = shardmeter::test::island(shardmeter::test::h100_sxm(), 16);
  s.plan.sharding = m::Sharding::zero1;
  s.plan.ep_overlap = true;
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  const m::LayerCost lc = m::layer_cost(s.model, gpu, s.plan, m::Precision::fp8, 1, l);
  const m::Fp8CastCost casts = m::fp8_cast_cost(s.model, gpu, s.plan, m::fp8_use(m::Precision::fp8, s.plan.stack, false,
                                                m::Fp8Recipe::current), 1, s.model.layers, l);
  REQUIRE(lc.ep_experts_memory_fwd_s > 0);
  REQUIRE(casts.experts_per_microbatch_s > 0);
  // The experts' piece: forward = grouped GEMMs + their memory-bound kernels + half their casts; backward twice
  // the forward's GEMMs and kernels + the other half. The attention piece: the rest of each pass.
  const double e_fwd = lc.ep_experts_fwd_s + lc.ep_experts_memory_fwd_s;
  const double fwd = lc.forward.compute_s() + lc.forward.memory_s + 0.5 * casts.per_microbatch_s;
  const double bwd = lc.backward.compute_s() + lc.backward.memory_s + 0.5 * casts.per_microbatch_s;
  const double e_casts = 0.5 * casts.experts_per_microbatch_s;
  const m::EpOverlapWindows w{fwd - e_fwd - e_casts, e_fwd + e_casts, bwd - 2 * e_fwd - e_casts, 2 * e_fwd + e_casts};
  m::MoeBlockCost a2a;
  a2a.all_to_all_s = lc.ep_all_to_all_s;
  a2a.all_to_all_bytes = lc.ep_all_to_all_bytes;
  const double per_block = m::ep_comm_per_block_s(a2a, s.plan, w, 16, m::ep_overlap_slowdown(gpu, s.plan, l, a2a));
  const m::Estimate e = m::evaluate(s);
  REQUIRE(e.feasible);
  CHECK(e.time.ep_comm_s == Approx(16 * s.model.layers * per_block).epsilon(1e-9));
  // Windows of the GEMMs and attention alone (before this) hide less.
  const m::EpOverlapWindows gemms_only{lc.forward.compute_s() - lc.ep_experts_fwd_s, lc.ep_experts_fwd_s,
                                       lc.backward.compute_s() - 2 * lc.ep_experts_fwd_s, 2 * lc.ep_experts_fwd_s};
  CHECK(per_block < m::ep_comm_per_block_s(a2a, s.plan, gemms_only, 16, m::ep_overlap_slowdown(gpu, s.plan, l, a2a)));
}

TEST_CASE("expert states: split by EP x ETP, optimizer sharded over the expert-data-parallel group") {
  m::Scenario s = tiny_scenario(2);
  const m::ParameterCounts p = m::count_parameters(s.model);
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  CHECK(l.edp == 4);  // 8 GPUs, ep 2 x etp 1
  // 4 blocks x 432 / 2 = 864 expert parameters per GPU; AdamW 2 + 2 + 12 bytes each: 13,824.
  CHECK(m::expert_states_bytes(s, l, p, 4) == 13824.0);
  // ZeRO-1: the 12 optimizer bytes over EDP 4: 864 x (2 + 2 + 3) = 6048.
  s.plan.sharding = m::Sharding::zero1;
  CHECK(m::expert_states_bytes(s, l, p, 4) == 6048.0);
}

TEST_CASE("expert-parallel consistency: EP divides the experts and the GPUs of a stage") {
  m::Scenario s = tiny_scenario(4);
  CHECK_FALSE(m::check_consistency(s));
  s.plan.ep = 3;  // 4 experts
  CHECK(m::check_consistency(s).reason == m::RejectReason::experts_not_divisible_by_ep);
  s.plan.ep = 4;
  s.plan.etp = 4;  // ep x etp = 16 > 8 GPUs
  CHECK(m::check_consistency(s).reason == m::RejectReason::expert_folding_does_not_divide_gpus);
  s.model.moe.experts = 0;  // a dense model has no experts to split
  s.plan.etp = 1;
  CHECK(m::check_consistency(s).reason == m::RejectReason::experts_not_divisible_by_ep);
}

TEST_CASE("an MoE estimate has an EP time component, expert memory and both parameter counts") {
  m::Scenario s = tiny_scenario(4);
  s.model = preset_model("mixtral-8x7b");
  s.training.global_batch = 64;
  s.training.micro_batch = 1;
  s.cluster.islands[0] = shardmeter::test::island(shardmeter::test::h100_sxm(), 64);
  s.plan.ep = 8;
  s.plan.pp = 4;
  s.plan.sharding = m::Sharding::zero1;
  const m::Estimate e = m::evaluate(s);
  REQUIRE(e.reject_reason != m::RejectReason::experts_not_divisible_by_ep);
  CHECK(e.parameters_total == 46702792704.0);
  CHECK(e.parameters_active == 12879925248.0);
  CHECK(e.time.ep_comm_s > 0);
  CHECK(e.memory.expert_states_bytes > 0);
  // EP 8 inside an NVLink node vs EP 16 across two nodes: the all-to-all slows down.
  m::Scenario wide = s;
  wide.plan.pp = 2;
  wide.plan.ep = 8;
  const double inside = m::evaluate(wide).time.ep_comm_s;
  wide.plan.etp = 1;
  wide.model.moe.experts = 16;  // 16 experts so that EP 16 divides them
  wide.plan.ep = 16;
  const double across = m::evaluate(wide).time.ep_comm_s;
  CHECK(across > inside);
}

TEST_CASE("DeepEP sends a token once to each other node holding one of its experts") {
  // 4 experts over 2 nodes (2 each), top-2: the other node is missed when both experts are local,
  // C(2,2)/C(4,2) = 2/4 x 1/3 = 1/6, so it receives 5/6 of a copy per token.
  CHECK(m::deepep_remote_node_copies(4, 2, 2) == Approx(5.0 / 6.0).epsilon(1e-12));
  // Qwen3-235B on EP 32 over 4 nodes (32 experts each), top-8: each other node is missed with
  // prod_{i<8} (96-i)/(128-i) = 0.092747, so 3 x 0.907253 = 2.72176 remote copies instead of 3.
  CHECK(m::deepep_remote_node_copies(128, 8, 4) == Approx(2.7217582).epsilon(1e-7));
  CHECK(m::deepep_remote_node_copies(128, 8, 1) == 0.0);
  // k >= experts of the other nodes: every node is hit (8 experts over 4 nodes, top-8: 3 copies).
  CHECK(m::deepep_remote_node_copies(8, 8, 4) == Approx(3.0).epsilon(1e-12));
}

TEST_CASE("Inside a node DeepEP sends a token once to each other rank holding one of its experts") {
  // 8 experts over EP 4 ranks of one node (2 each), top-2: a rank is missed with C(6,2)/C(8,2) = 15/28, so each
  // token goes to 3 x 13/28 = 39/28 other ranks, where the all-to-all sends its k (R-1)/EP = 2 x 3/4 = 42/28 remote
  // copies: DeepEP's NVLink bytes are 13/14 of the all-to-all's.
  CHECK(m::deepep_remote_node_copies(8, 2, 4) == Approx(39.0 / 28.0).epsilon(1e-12));
  m::Scenario s = tiny_scenario(4);
  s.model.moe.experts = 8;
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  REQUIRE(l.ep_group.nodes == 1);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  const double latency = 2.0 * l.links.scaleup_latency_s;   // dispatch + combine, one link latency each
  const double a2a = m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).all_to_all_s - latency;
  s.plan.ep_dispatcher = m::EpDispatcher::deepep;
  const double deepep = m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).all_to_all_s - latency;
  CHECK(deepep == Approx(a2a * 13.0 / 14.0).epsilon(1e-12));
  // One expert per rank (4 over EP 4): the k experts sit on k distinct ranks, nothing to save.
  m::Scenario one = tiny_scenario(4);
  const m::IslandLayout l1 = m::make_layout(one.cluster.islands[0], one.plan);
  const double a2a1 = m::moe_block_cost(one.model, gpu, one.plan, m::Precision::bf16, 2, l1).all_to_all_s;
  one.plan.ep_dispatcher = m::EpDispatcher::deepep;
  CHECK(m::moe_block_cost(one.model, gpu, one.plan, m::Precision::bf16, 2, l1).all_to_all_s == Approx(a2a1).epsilon(1e-12));
}

TEST_CASE("EP overlap: each all-to-all hides under the compute Megatron's combined 1F1B pairs it with") {
  m::PlanSpec p;
  p.ep_overlap = true;
  // Warm-up forwards that run alone: PP 8 with 4 virtual stages, 128 micro-batches: (8-1) x 2 + (4-1) x 8 + 1 = 39
  // of 128 x 4 = 512 chunk forwards; PP 4 without virtual stages, 80: (3 + 1) / 80; no pipeline, 5: 1 / 5.
  p.pp = 8;
  p.interleave = 4;
  CHECK(m::ep_overlap_unpaired_share(p, 128) == Approx(39.0 / 512.0).epsilon(1e-12));
  p.pp = 4;
  p.interleave = 1;
  CHECK(m::ep_overlap_unpaired_share(p, 80) == Approx(4.0 / 80.0).epsilon(1e-12));
  p.pp = 1;
  CHECK(m::ep_overlap_unpaired_share(p, 5) == Approx(0.2).epsilon(1e-12));
  CHECK(m::ep_overlap_unpaired_share(p, 1) == 1.0);

  // One dispatch + combine of 2 ms (1 ms each); attention 0.5 ms forward and 1 ms backward, experts 1 ms forward and
  // 2 ms backward; slowdown 0.1; 10 micro-batches without a pipeline (1/10 alone). exposed_after_overlap hides at
  // most 0.9 of its window and charges 0.1 of what it hides:
  //   combine bwd  | attention fwd 0.5         : hides 0.45, exposed 0.55 + 0.045 = 0.595
  //   dispatch fwd | experts' data grad 1.0    : hides 0.9,  exposed 0.10 + 0.090 = 0.190
  //   dispatch bwd | weight grad 1 + fwd 1 = 2 : hides 1.0,  exposed 0    + 0.100 = 0.100
  //   combine fwd  | attention bwd 1.0         : hides 0.9,  exposed 0.10 + 0.090 = 0.190
  //   paired 1.075 ms; 0.1 x 4 ms alone + 0.9 x 1.075 = 1.3675 ms.
  m::MoeBlockCost c;
  c.all_to_all_s = 2e-3;
  const m::EpOverlapWindows w{0.5e-3, 1e-3, 1e-3, 2e-3};
  CHECK(m::ep_comm_per_block_s(c, p, w, 10, 0.1) == Approx(1.3675e-3).epsilon(1e-12));
  // A recomputed MoE layer runs its forward pair again inside the backward, unpaired: + 2 ms.
  p.moe_recompute = m::MoeRecompute::layer;
  CHECK(m::ep_comm_per_block_s(c, p, w, 10, 0.1) == Approx(3.3675e-3).epsilon(1e-12));
  // Without overlap: forward and backward pairs (and the recomputed one) in full.
  p.ep_overlap = false;
  CHECK(m::ep_comm_per_block_s(c, p, w, 10, 0.1) == Approx(6e-3).epsilon(1e-12));
  p.moe_recompute = m::MoeRecompute::none;
  CHECK(m::ep_comm_per_block_s(c, p, w, 10, 0.1) == Approx(4e-3).epsilon(1e-12));
}

TEST_CASE("DeepEP's overlapped all-to-all takes 20 SMs from the compute beside it") {
  m::Scenario s = tiny_scenario(4);
  s.cluster.islands[0] = shardmeter::test::island(shardmeter::test::h100_sxm(), 16);
  s.model.moe.experts = 16;
  s.plan.ep = 16;  // two 8-GPU nodes
  s.plan.ep_dispatcher = m::EpDispatcher::deepep;
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  REQUIRE(l.ep_group.nodes == 2);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  m::MoeBlockCost a2a;  // 2 GB in 40 ms: 50 GB/s on average (docs/model.md §6.6)
  a2a.all_to_all_bytes = 2e9;
  a2a.all_to_all_s = 0.04;
  CHECK(m::ep_overlap_slowdown(gpu, s.plan, l, a2a) == m::contention_slowdown(gpu, 20, 50e9));
  s.plan.ep_dispatcher = m::EpDispatcher::alltoall;  // NCCL: its channels, as the other collectives
  CHECK(m::ep_overlap_slowdown(gpu, s.plan, l, a2a) == m::collective_contention(gpu, l.ep_group, 2e9, 0.04));
}

TEST_CASE("gpt-oss on Megatron-Core: the clamped gate and the per-expert down-projection bias run unfused") {
  m::Scenario s = tiny_scenario(4);
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  const double hbm = 3.35e12 * 0.85, launch = 4e-6;
  // Base (the test above): 9088 bytes and 4 launches. 64 routed copies (32 tokens x top-2), expert width 6, h 8,
  // one local expert (4 / EP 4). The extra terms enter the forward at a third of their forward + backward (+
  // recompute) total, since the backward is charged twice the forward.
  // Clamp 7: 2 bytes x 64 x 6 x (8 forward + 6 backward) = 10,752 bytes, 5 kernels.
  s.model.moe.activation_clamp = 7;
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).memory_fwd_s ==
        Approx((9088.0 + 10752.0 / 3) / hbm + (4 + 5.0 / 3) * launch).epsilon(1e-12));
  // With moe_act recompute: the fused activation once more, 2 x 3 x 64 x 6 = 2304 bytes and 1 kernel, and the clamp's
  // forward again, 2 x 64 x 6 x 8 = 6144 bytes and 3 kernels: (10,752 + 2304 + 6144) / 3 = 6400, (5 + 1 + 3) / 3 = 3.
  s.plan.moe_recompute = m::MoeRecompute::activation;
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).memory_fwd_s ==
        Approx((9088.0 + 6400.0) / hbm + (4 + 3.0) * launch).epsilon(1e-12));
  // Biased experts, no clamp, no recompute: 2 bytes x 64 copies x 8 x (6 + 6) = 12,288 bytes, 6 x 1 + 1 = 7 kernels.
  s.plan.moe_recompute = m::MoeRecompute::none;
  s.model.moe.activation_clamp = 0;
  s.model.bias = true;
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).memory_fwd_s ==
        Approx((9088.0 + 12288.0 / 3) / hbm + (4 + 7.0 / 3) * launch).epsilon(1e-12));
  // Another stack (its own fused kernels): nothing extra.
  s.plan.stack = m::Stack::torch_fsdp2;
  CHECK(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).memory_fwd_s ==
        Approx(9088.0 / hbm + 4 * launch).epsilon(1e-12));
}

TEST_CASE("MoE activations: the experts' fc1 input is the only routed k-copy buffer stored") {
  m::Scenario s = tiny_scenario(4);
  // 32 tokens; dense MLP 6 bytes x 16 = 96 per token replaced by the experts' (2 x 6 + 1 x 6 shared) x 6 = 108 and
  // the fc1 input, 2 bytes x 2 copies x 8 = 32: 32 x (108 - 96 + 32) = 1408 per MoE block, x 3 MoE of 4 blocks = 1056.
  CHECK(m::moe_extra_activation_bytes(s.model, s.plan, 2) == Approx(1056.0).epsilon(1e-12));
  // moe_act: the activation output (2 bytes per unit of width) is not stored: (2 x 6 + 6) x 4 = 72 -> 32 x 8 x 3 / 4.
  s.plan.moe_recompute = m::MoeRecompute::activation;
  CHECK(m::moe_extra_activation_bytes(s.model, s.plan, 2) == Approx(32.0 * (72 - 96 + 32) * 3 / 4).epsilon(1e-12));
}

TEST_CASE("an MoE block runs the attention's TP collectives but not the MLP's, unless shared experts do") {
  m::Scenario s = tiny_scenario(4);
  s.plan.tp = 2;
  s.plan.sequence_parallel = true;
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  CHECK(m::moe_block_tp_collectives_saved(s.model) == 0.0);  // one shared expert: a TP-split MLP keeps its pair
  const double with_shared = m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).forward.tp_comm_s;
  s.model.moe.shared_experts = 0;
  CHECK(m::moe_block_tp_collectives_saved(s.model) == 1.0);
  const double routed_only = m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).forward.tp_comm_s;
  // 3 of the 4 blocks are MoE: 2 - 3/4 = 1.25 collectives per block instead of 2 (one collective's time does not
  // depend on the experts).
  CHECK(routed_only == Approx(with_shared * 1.25 / 2.0).epsilon(1e-12));
}

TEST_CASE("YaRN RoPE runs unfused on Megatron-Core: its exact passes over Q and K and its launches") {
  m::Scenario s = tiny_scenario(4);
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  const double hbm = 3.35e12 * 0.85, launch = 4e-6;
  auto memory_fwd = [&] { return m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).forward.memory_s; };
  const double fused = memory_fwd();
  // By hand: 32 tokens (micro-batch 2 x 16) x Q and K (2 + 2 heads of 4 = 16 elements) x 2 bytes = 1024 bytes per
  // pass. Fused RoPE is charged 2 passes in the forward (x 3 with the backward); unfused, 12 forward + 13 backward
  // = 25 passes, a third in the forward: 1024 x (25/3 - 2) = 6485.33 bytes more. Launches: 2 calls x (12 + 7) = 38,
  // less the 3 of the fused rotary already counted, a third in the forward: 35/3.
  s.model.yarn_factor = 32;
  CHECK(memory_fwd() - fused == Approx(1024.0 * (25.0 / 3 - 2) / hbm + 35.0 / 3 * launch).epsilon(1e-9));
  // The backward is charged at twice the forward, as every memory-bound term.
  CHECK(m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).backward.memory_s == Approx(2 * memory_fwd()));
  // A factor of 1 has a concentration factor of 1 (0.1 ln 1 + 1): TE's fused RoPE; other stacks fuse their own.
  s.model.yarn_factor = 1;
  CHECK(memory_fwd() == fused);
  s.model.yarn_factor = 32;
  s.plan.stack = m::Stack::torch_fsdp2;
  const double fsdp_unfused = memory_fwd();
  s.model.yarn_factor = 0;
  CHECK(memory_fwd() == fsdp_unfused);
  // The gpt-oss presets carry Megatron-Bridge's yarn_rotary_scaling_factor 32.
  CHECK(preset_model("gpt-oss-120b").yarn_factor == 32.0);
  CHECK(preset_model("qwen3-235b-a22b").yarn_factor == 0.0);
}

TEST_CASE("fp8 MoE blocks: the experts' operands are cast per local expert, the router and the tokens stay 16-bit") {
  m::Scenario s = tiny_scenario(2);
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  // By hand (docs/model.md §2.2, §15.4), micro-batch 2 x 16 = 32 tokens, TP 1, no SP; 1 dense block of 4, so the
  // dense MLP counts 1/4 and the MoE part 3/4 per block.
  //   attention: inputs 32 x (8 + 8) = 512 (norm 256), output gradients 32 x (24 + 8) = 1024, 2 GEMMs (1 by a norm);
  //   dense MLP x 1/4: inputs 32 x (8 + 16) / 4 = 192 (norm 64), gradients 32 x (32 + 8) / 4 = 320, 2 GEMMs (1);
  //   shared expert (width 6) x 3/4: inputs 32 x (8 + 6) x 3/4 = 336, gradients 32 x (12 + 8) x 3/4 = 480,
  //     matrices 3 x 8 x 6 x 3/4 = 108, 1.5 GEMMs;
  //   routed: 32 x top-2 = 64 copies on the busiest rank, 2 local experts of width 6: inputs 64 x (8 + 6) x 3/4 = 672,
  //     gradients 64 x (12 + 8) x 3/4 = 960, matrices 2 x 144 x 3/4 = 216, 1.5 grouped GEMMs of 2 splits.
  const m::Fp8BlockTensors x = m::fp8_block_tensors(s.model, s.plan, 2);
  CHECK(x.inputs == Approx(1040.0));
  CHECK(x.norm_inputs == Approx(320.0));
  CHECK(x.grad_outputs == Approx(1824.0));
  CHECK(x.weights == Approx(256.0 + 96.0 + 108.0));
  CHECK(x.gemms == Approx(5.5));
  CHECK(x.expert_inputs == Approx(672.0));
  CHECK(x.expert_grad_outputs == Approx(960.0));
  CHECK(x.expert_weights == Approx(216.0));
  CHECK(x.expert_tensors == Approx(1.5));
  CHECK(x.local_experts == 2.0);
  // megatron_te, delayed scaling: 4 B per element over (1040 - 320) + 1824 + 672 + 960 = 4176 elements = 16,704 B;
  // launches (5.5 - 2) + 5.5 = 9 for the dense casts, 2 x 1.5 = 3 fused multi-tensor casts for the experts: 12.
  //   16,704 / 2.8475e12 + 12 x 4 us = 48.00587 us.
  const m::Fp8CastCost delayed =
      m::fp8_cast_cost(s.model, gpu, s.plan, m::fp8_use(m::Precision::fp8, m::Stack::megatron_te), 2, 4, l);
  CHECK(delayed.per_microbatch_s == Approx(48.00587e-6).epsilon(1e-5));
  // Once per step: (460 + 216) x 4 B = 2,704 B, 5.5 + 1.5 x 2 = 8.5 launches: 0.9496 ns + 34 us.
  CHECK(delayed.per_step_s == Approx(34.00095e-6).epsilon(1e-5));
  // Current scaling: 6 B per element (the amax read) = 25,056 B; each expert split takes 3 launches (amax, scale,
  // quantize): 9 + 2 x 1.5 x 3 x 2 = 27 launches, 108 us + 8.799 ns.
  const m::Fp8CastCost current = m::fp8_cast_cost(
      s.model, gpu, s.plan, m::fp8_use(m::Precision::fp8, m::Stack::megatron_te, false, m::Fp8Recipe::current), 2, 4, l);
  CHECK(current.per_microbatch_s == Approx(108.0088e-6).epsilon(1e-5));
  // The routed experts' part of it (their piece of the EP overlap, §15.4): (672 + 960) x 6 B = 9,792 B and the 18
  // per-split launches; delayed: x 4 B = 6,528 B, 3 launches.
  CHECK(current.experts_per_microbatch_s == Approx(9792.0 / 2.8475e12 + 18 * 4e-6).epsilon(1e-9));
  CHECK(delayed.experts_per_microbatch_s == Approx(6528.0 / 2.8475e12 + 3 * 4e-6).epsilon(1e-9));
  // Full recompute re-casts the forward inputs: (720 + 672) x 6 B, 3.5 + 1.5 x 6 = 12.5 launches.
  CHECK(current.recompute_s == Approx(8352.0 / 2.8475e12 + 12.5 * 4e-6).epsilon(1e-6));
  // The router's h x E GEMM runs at the 16-bit rate whatever the training precision (Megatron's TopKRouter).
  const m::MoeBlockCost c8 = m::moe_block_cost(s.model, gpu, s.plan, m::Precision::fp8, 2, l);
  const double shared8 = m::gemm_time_s(32, 12, 8, gpu, m::Precision::fp8) + m::gemm_time_s(32, 8, 6, gpu, m::Precision::fp8);
  CHECK(c8.gemm_fwd_s - c8.routed_gemm_fwd_s - shared8 ==
        Approx(m::gemm_time_s(32, 4, 8, gpu, m::Precision::bf16)).epsilon(1e-9));
  // and the all-to-all moves as many bytes as in bf16.
  CHECK(c8.all_to_all_s == Approx(m::moe_block_cost(s.model, gpu, s.plan, m::Precision::bf16, 2, l).all_to_all_s));
}

TEST_CASE("fp8 MoE casts: more expert parallelism never costs a GPU more cast time", "[moe][fp8][property]") {
  // The routed copies a GPU casts do not depend on EP; its local experts (their weights, and under current scaling
  // their launches) fall as EP grows. So per micro-batch and per step the cast time never rises with EP.
  for (const m::Fp8Recipe recipe : {m::Fp8Recipe::delayed, m::Fp8Recipe::current}) {
    double last_mb = 1e30, last_step = 1e30;
    for (const int ep : {1, 2, 4}) {
      INFO("ep " << ep << ", recipe " << static_cast<int>(recipe));
      m::Scenario s = tiny_scenario(ep);
      const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
      const m::Fp8CastCost c = m::fp8_cast_cost(s.model, s.cluster.islands[0].gpu, s.plan,
                                                m::fp8_use(m::Precision::fp8, m::Stack::megatron_te, false, recipe), 2, 4, l);
      CHECK(c.per_microbatch_s <= last_mb);
      CHECK(c.per_step_s <= last_step);
      CHECK(c.per_microbatch_s > 0);
      last_mb = c.per_microbatch_s;
      last_step = c.per_step_s;
    }
  }
}

TEST_CASE("fp8 MoE blocks save the experts' GEMM inputs in fp8 (Transformer Engine)", "[moe][fp8][memory]") {
  m::Scenario s = tiny_scenario(2);
  const m::Fp8Use te = m::fp8_use(m::Precision::fp8, m::Stack::megatron_te);
  // By hand, micro-batch 2 x 16 tokens, h 8, TP 1, flash, selective recompute (docs/model.md §2.2, §15.5):
  //   dense part: s*b*h = 256; norms' outputs -256 x (1 + 1/4) = -320, MLP-down input -1/4 x 256 x 16/8 = -128,
  //   projection input +256 (flash keeps its output): -192;
  //   MoE blocks x 3/4 over 32 tokens: routed fc1 and fc2 inputs -2 copies x (8 + 6), shared fc2 input -6, shared
  //   fc1 input +8 (an fp8 copy beside the router's 16-bit input): 0.75 x 32 x (-28 - 6 + 8) = -624. Total -816.
  CHECK(m::fp8_saved_activation_delta_bytes(s.model, s.plan, 2, te) == Approx(-816.0));
  // moe_act recomputes the experts' activation: their fc2 input is not stored in either precision.
  //   0.75 x 32 x (-16 - 6 + 8) = -336; total -528.
  s.plan.moe_recompute = m::MoeRecompute::activation;
  CHECK(m::fp8_saved_activation_delta_bytes(s.model, s.plan, 2, te) == Approx(-528.0));
  // The routed part recomputed whole keeps only its input: the dense part's -192 alone.
  s.plan.moe_recompute = m::MoeRecompute::layer;
  CHECK(m::fp8_saved_activation_delta_bytes(s.model, s.plan, 2, te) == Approx(-192.0));
  // torchao keeps 16-bit inputs: nothing changes.
  CHECK(m::fp8_saved_activation_delta_bytes(s.model, s.plan, 2, m::fp8_use(m::Precision::fp8, m::Stack::torch_fsdp2)) == 0.0);
}

TEST_CASE("The MTP module's routed experts are split over EP like every MoE block's (docs/model.md §15.5)") {
  m::Scenario s = tiny_scenario(4);
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const auto only = [&](const m::Scenario& sc) {
    return m::stage_memory(sc, l, m::count_parameters(sc.model), 8, m::StagePosition::only);
  };
  const m::MemoryBreakdown without = only(s);
  s.model.mtp_layers = 1;
  const m::ParameterCounts p = m::count_parameters(s.model);
  const m::MemoryBreakdown with = only(s);
  // One MTP depth holds one MoE block's 4 experts of 144 = 576 routed parameters: 576 / EP 4 = 144 per GPU, a third
  // of the 3 MoE blocks' 3 x 576 / 4 = 432, so the expert states grow by a third. The rest of the module is dense,
  // 2 bytes of weights each.
  CHECK(with.expert_states_bytes == Approx(without.expert_states_bytes * (432.0 + 144.0) / 432.0));
  CHECK(with.weights_bytes - without.weights_bytes == Approx(2.0 * (p.mtp - 576.0)));
}
