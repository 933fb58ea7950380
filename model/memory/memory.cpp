#include "model/memory/memory.hpp"

#include <algorithm>
#include <cmath>

#include "model/parallel/consistency.hpp"
#include "model/comm/fsdp_exposure.hpp"
#include "model/memory/logit_bytes.hpp"
#include "model/parallel/fp8.hpp"
#include "model/memory/fp8_activation_cache.hpp"
#include "model/memory/host_offload_memory.hpp"
#include "model/parallel/dualpipe.hpp"
#include "model/parallel/fp8_memory.hpp"
#include "model/kernels/mla.hpp"
#include "model/memory/mla_memory.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/memory/moe_memory.hpp"
#include "model/parallel/pipeline_stages.hpp"
#include "model/parallel/recompute.hpp"
#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

namespace {
constexpr double kUnitGradBytes = 2.0;     // an FSDP unit's unsharded bf16/fp16 gradients
constexpr double kOuterStateBytes = 8.0;   // DiLoCo: fp32 previous outer parameters + outer momentum
// DeepSpeed ZeRO-3 gathers parameters per submodule, at most stage3_max_live_parameters resident, prefetching up to
// stage3_prefetch_bucket_size, and reduces gradients in buckets of reduce_bucket_size elements (defaults of
// deepspeed/runtime/zero/config.py; docs/model.md §7.6).
constexpr double kDeepSpeedMaxLiveParams = 1e9;
constexpr double kDeepSpeedPrefetchParams = 5e7;
constexpr double kDeepSpeedReduceBucketElements = 5e8;
StageMemoryTerms memory_terms(const Scenario& s, const StageLayers& stages, const Fp8Use& fp8,
                              bool activations) noexcept;
// The routed experts of the multi-token-prediction modules: one MoE block's experts per depth (§15.5).
double mtp_routed_params(const ModelSpec& m) noexcept {
  return m.mtp_layers * static_cast<double>(m.moe.experts) * expert_params(m);
}
}  // namespace

double layer_activation_bytes(const ModelSpec& m, const PlanSpec& plan, int micro_batch) noexcept {
  const double t = plan.tp;
  const double sbh = micro_batch * static_cast<double>(m.seq_len) / plan.cp * m.hidden;
  const double d = m.dropout ? 1.0 : 0.0;
  const double kv = static_cast<double>(m.kv_heads) / m.heads;
  const double f_over_h = static_cast<double>(m.ffn_hidden) / m.hidden;

  if (plan.recompute == Recompute::full) {
    // Only the block input survives (2sbh), sequence-split under SP [Korthikanti Table 2, last row].
    return 2.0 * sbh / (plan.sequence_parallel ? t : 1.0);
  }
  if (plan.recompute == Recompute::op_selective) {
    // torchtitan's per-op policy keeps the outputs of every odd matmul (wq, wv, w1, w2), of attention and of the
    // SP reduce-scatters; the rest is recomputed from the block input [docs/model.md §7.5]. In sbh units: block
    // input 2 (/t under SP); w2's output 2 (under TP a partial sum of full width on every rank); with SP the two
    // reduce-scatter outputs 2/t each; split by t: Q 2, V 2g/a, attention output 2, the first MLP matmul 2f/h.
    const double sp_outputs = plan.sequence_parallel && plan.tp > 1 ? 4.0 / t : 0.0;
    const double kept = 2.0 / (plan.sequence_parallel ? t : 1.0) + 2.0 + sp_outputs +
                        (2.0 + 2.0 * kv + 2.0 + 2.0 * f_over_h) / t;
    const bool flash = plan.attention == AttentionKernel::flash;  // standard attention re-runs (layer_cost.cpp)
    return sbh * kept + (flash ? 4.0 * m.heads * static_cast<double>(m.seq_len) / plan.cp * micro_batch / t : 0.0);
  }
  // Not split by TP: QKV input 2, MLP input 2, two norm inputs 4, two dropout masks 1 each [Korthikanti §4.1].
  // recompute_modules layernorm discards the two norms' outputs (the QKV and MLP inputs) and re-runs the norms
  // from their kept inputs before backward (docs/model.md §7.11).
  const double norm_outputs = recomputes_module(plan, RecomputeModule::layernorm) ? 0.0 : 2.0 + 2.0;
  const double replicated = norm_outputs + 4.0 + 2.0 * d;
  // Split by TP: Q 2, K and V 2*g/a each, attention output (projection input) 2, MLP activations
  // (GELU: input + output = 4f/h; SwiGLU: gate, up, product = 6f/h). recompute_modules mlp keeps only the dense MLP's
  // input (counted above), mla_up_proj discards Q, K and V, the outputs of MLA's up-projections (§7.11, §7.13).
  const double dense_share = is_moe(m) ? static_cast<double>(dense_layer_count(m)) / m.layers : 1.0;
  const double mlp_kept = recomputes_module(plan, RecomputeModule::mlp) ? 1.0 - dense_share : 1.0;
  const double mlp = mlp_kept * (m.ffn_type == FfnType::swiglu ? 6.0 : 4.0) * f_over_h;
  // MLA saves its latents, Q and K of d + d_r and V of d_v per head, and an a*d_v-wide output (§7.13).
  const MlaSavedSbh mla = mla_saved_sbh(m, plan);
  const double attention =
      uses_mla(m) ? (mla.qkv + mla.attention_out) * t : 2.0 + 4.0 * kv + 2.0;  // Q, K, V and the output, x t
  const double split = attention + mlp;
  double bytes = sbh * ((replicated + mla.latents) / (plan.sequence_parallel ? t : 1.0) + split / t);

  // Score-matrix tensors (softmax output 2as^2b, dropout mask as^2b, dropout output 2as^2b) are stored only by
  // standard attention without core-attention recompute; FlashAttention keeps O(as) statistics instead.
  const bool scores_stored = plan.attention == AttentionKernel::standard &&
                             (plan.recompute == Recompute::none ||
                              (plan.recompute == Recompute::selective &&
                               !recomputes_module(plan, RecomputeModule::core_attn)));
  if (scores_stored) {
    const double a_s2_b = m.heads * static_cast<double>(m.seq_len) / plan.cp * m.seq_len * micro_batch;
    bytes += a_s2_b * (2.0 + 3.0 * d) / t;
  } else if (plan.attention == AttentionKernel::flash) {
    bytes += 4.0 * m.heads * static_cast<double>(m.seq_len) / plan.cp * micro_batch / t;  // fp32 log-sum-exp
  }
  return bytes;
}

bool model_states_exceed_memory(const Scenario& s) noexcept {
  return model_states_exceed_memory(s, count_parameters(s.model));
}

bool model_states_exceed_memory(const Scenario& s, const ParameterCounts& params) noexcept {
  const int stages_here = stages_per_island(s);
  // The same for every island; the screen reads the model states only, so the activation terms stay 0.
  const StageMemoryTerms terms = memory_terms(
      s, stage_layers(s.model, s.plan),
      fp8_use(s.training.precision, s.plan.stack, s.training.fp8_params, s.training.fp8_recipe), false);
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const IslandSpec& island = s.cluster.islands[static_cast<std::size_t>(i)];
    const IslandLayout l = make_layout(island, s.plan, stages_here);
    // The same stages stage_memory() sizes: the first holds the embedding, the last the head (or the tied copy).
    const StagePosition position = s.plan.pp > 1 ? StagePosition::first : StagePosition::only;
    MemoryBreakdown m = stage_memory(s, l, params, terms, 1, position);
    if (s.plan.pp > 1) {
      const MemoryBreakdown last = stage_memory(s, l, params, terms, 1, StagePosition::last);
      if (last.weights_bytes > m.weights_bytes) m = last;
    }
    if (s.plan.pp > 2) {
      const MemoryBreakdown middle = stage_memory(s, l, params, terms, 1, StagePosition::middle);
      if (middle.weights_bytes > m.weights_bytes) m = middle;
    }
    const double states = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.outer_state_bytes +
                          m.runtime_overhead_bytes + m.expert_states_bytes;
    // No transient allocations, so no allocator reserve: the bound holds for any activations (§7.9).
    if (states > usable_memory_bytes(island.gpu, s.runtime, MemoryBreakdown{})) return true;
  }
  return false;
}

double allocator_reserve_bytes(const MemoryBreakdown& peak, const RuntimeSpec& runtime) noexcept {
  return runtime.fragmentation_fraction * (peak.activations_bytes + peak.logits_bytes + peak.fsdp_buffers_bytes);
}

double usable_memory_bytes(const GpuSpec& gpu, const RuntimeSpec& runtime, const MemoryBreakdown& peak) noexcept {
  // Never below zero (§7.8): transient allocations so large that their reserve alone exceeds the HBM leave nothing
  // usable, and the plan reads as the fullest (memory / 0) rather than as no memory at all.
  return std::max(0.0, gpu.hbm_bytes - allocator_reserve_bytes(peak, runtime));
}

StageMemoryTerms stage_memory_terms(const Scenario& s) noexcept {
  return stage_memory_terms(
      s, stage_layers(s.model, s.plan),
      fp8_use(s.training.precision, s.plan.stack, s.training.fp8_params, s.training.fp8_recipe));
}

namespace {

// `activations` false: the model-state terms only (the memory screen reads nothing else).
StageMemoryTerms memory_terms(const Scenario& s, const StageLayers& stages, const Fp8Use& fp8,
                              bool activations) noexcept {
  const ModelSpec& m = s.model;
  const PlanSpec& plan = s.plan;
  const int b = s.training.micro_batch;
  StageMemoryTerms t;
  t.stages = stages;
  t.fp8 = fp8;
  // Gradient and optimizer bytes per parameter from the numerics: main gradients in the reduction's type on
  // Megatron stacks, the optimizer-state and master-weight dtypes (model/memory/state_bytes.hpp; §7.1, §7.2).
  t.optimizer_bytes_per_param = optimizer_bytes_per_param(s.training);
  t.gradient_bytes_per_param = gradient_bytes_per_param(s.training, plan.stack);
  // TE's fp8 weight copies per recipe and GPU generation (model/parallel/fp8_memory.hpp; docs/model.md §7.14).
  const Fp8Recipe recipe = s.training.fp8_recipe;
  t.fp8_weight_extra_bytes_per_param = fp8_weight_extra_bytes_per_param(t.fp8, recipe, plan.sharding, false);
  t.fp8_weight_extra_bytes_per_param_transpose_free =
      fp8_weight_extra_bytes_per_param(t.fp8, recipe, plan.sharding, true);
  const bool fsdp = plan.sharding == Sharding::fsdp || plan.sharding == Sharding::hsdp;
  if (t.fp8_weight_extra_bytes_per_param != 0 || t.fp8_weight_extra_bytes_per_param_transpose_free != 0 ||
      (fsdp && t.fp8.param_gather))
    t.fp8_block_weight_params = fp8_block_weight_params(m);
  if (!activations) return t;

  // Activations of one block and one micro-batch under the plan's policy, and under no recompute for the blocks a
  // partial recompute keeps whole (checkpointed < blocks only with recompute: full and recompute_layers > 0).
  t.per_layer_bytes = layer_activation_bytes(m, plan, b);
  const bool partial_full = plan.recompute == Recompute::full && plan.recompute_layers > 0;
  if (partial_full || plan.recompute == Recompute::op_selective) {
    PlanSpec kept_whole = plan;
    kept_whole.recompute = Recompute::none;
    t.per_kept_layer_bytes = layer_activation_bytes(m, kept_whole, b);
  }
  // MoE hook: routed copies and dispatch buffers of the MoE blocks (docs/model.md §15.5).
  t.moe_extra_bytes = moe_extra_activation_bytes(m, plan, b);
  if (plan.recompute == Recompute::full) {
    // The working set of the one block being recomputed (its full activations, no recompute).
    PlanSpec other = plan;
    other.recompute = Recompute::selective;
    t.recompute_working_set_bytes =
        layer_activation_bytes(m, other, b) + fp8_saved_activation_delta_bytes(m, other, b, t.fp8);
    // fp8 GEMM inputs of the blocks kept whole, saved as under no recompute.
    other.recompute = Recompute::none;
    t.fp8_saved_delta_bytes = fp8_saved_activation_delta_bytes(m, other, b, t.fp8);
  } else {
    if (plan.recompute == Recompute::op_selective)
      t.recompute_working_set_bytes = t.per_kept_layer_bytes - t.per_layer_bytes;  // what the block re-creates
    t.fp8_saved_delta_bytes = fp8_saved_activation_delta_bytes(m, plan, b, t.fp8) +
                              fp8_activation_cache_delta_bytes(m, plan, b, t.fp8);  // §7.12
  }
  const double tokens = b * static_cast<double>(m.seq_len) / plan.cp;
  t.logits_bytes = logit_bytes_per_element(plan.stack) * tokens * m.vocab / plan.tp;  // vocab-parallel loss (§7.7)
  return t;
}

}  // namespace

StageMemoryTerms stage_memory_terms(const Scenario& s, const StageLayers& stages, const Fp8Use& fp8) noexcept {
  return memory_terms(s, stages, fp8, true);
}

MemoryBreakdown stage_memory(const Scenario& s, const IslandLayout& l,
                             const ParameterCounts& params, int microbatches, StagePosition position) noexcept {
  return stage_memory(s, l, params, stage_memory_terms(s), microbatches, position);
}

namespace {

// Which blocks and which of the embedding / head one pipeline rank holds.
struct RankShape {
  double layers = 0;  // its blocks (docs/model.md §5.4)
  int rank = 0;       // its pipeline rank: 0, 1 (the fullest middle rank) or pp - 1
  bool holds_embedding = false, holds_head = false;
  bool dual = false;  // DualPipe (§5.8): the rank also holds the mirrored stage
  DualPipeRank dual_rank{};
};

RankShape rank_shape(const PlanSpec& plan, const StageMemoryTerms& terms, StagePosition position) {
  const StageLayers& stages = terms.stages;
  RankShape r;
  // DualPipe (§5.8): the rank also holds the mirrored stage, and the end ranks the embedding and the head both.
  r.dual = uses_dualpipe(plan);
  const bool end_rank = position != StagePosition::middle;
  r.dual_rank = r.dual ? dualpipe_rank(plan, stages, end_rank) : DualPipeRank{};
  r.layers = r.dual                                ? r.dual_rank.blocks
             : position == StagePosition::middle ? stages.middle
             : position == StagePosition::last   ? stages.last
                                                 : stages.first;
  r.rank = position == StagePosition::middle ? 1 : position == StagePosition::last ? plan.pp - 1 : 0;
  r.holds_embedding = position == StagePosition::first || position == StagePosition::only || (r.dual && end_rank);
  r.holds_head = position == StagePosition::last || position == StagePosition::only || (r.dual && end_rank);
  return r;
}

// Parameters on the rank: its blocks and (vocab-parallel) embedding / head, before the TP split.
double rank_params(const Scenario& s, const ParameterCounts& params, const RankShape& r, StagePosition position) {
  double stage_params = r.layers * params.layer;
  if (r.holds_embedding) stage_params += params.embedding;
  if (r.holds_head) {
    // A separate head, or with pipelining a second copy of the tied embedding on the last stage (Megatron).
    const bool tied_copy = params.output_head == 0.0 && position == StagePosition::last && !r.dual;
    stage_params += tied_copy ? params.embedding : params.output_head;
    stage_params += params.final_norm;
    // MoE hook: multi-token prediction sits with the head (docs/model.md §15.5); its routed experts are split over
    // EP x ETP like every MoE block's (below), the rest is dense.
    stage_params += params.mtp - mtp_routed_params(s.model);
  }
  return stage_params;
}

// Weights, gradients, optimizer and DiLoCo outer state of `p` parameters per GPU. ZeRO stages [Rajbhandari et al.
// 2020 §5; docs/model.md §7.1], sharded over dp_shard x cp ranks: the CP ranks hold the same parameters
// (Megatron-Core's dp-cp group, torchtitan's dp_shard_cp).
void model_states(const PlanSpec& plan, const IslandLayout& l, const StageMemoryTerms& terms, double layers, double p,
                  MemoryBreakdown& mem) {
  const double shards = l.state_shards;
  mem.weights_bytes = kWeightBytes * p;
  mem.gradients_bytes = terms.gradient_bytes_per_param * p;
  mem.optimizer_bytes = terms.optimizer_bytes_per_param * p;
  switch (plan.sharding) {
    case Sharding::none: break;
    case Sharding::zero1: mem.optimizer_bytes /= shards; break;
    case Sharding::zero2:
      mem.optimizer_bytes /= shards;
      mem.gradients_bytes /= shards;
      break;
    case Sharding::fsdp:
    case Sharding::hsdp:
      mem.optimizer_bytes /= shards;
      mem.gradients_bytes /= shards;
      mem.weights_bytes /= shards;
      break;
  }
  // fp8 (docs/model.md §2.2): TE's cached fp8 weights and transposes sit beside the 16-bit weights of the stage.
  const double fp8_extra = l.fp8_transpose_free ? terms.fp8_weight_extra_bytes_per_param_transpose_free
                                                : terms.fp8_weight_extra_bytes_per_param;
  if (fp8_extra != 0) mem.weights_bytes += fp8_extra * layers * terms.fp8_block_weight_params / plan.tp;
  if (plan.sync == SyncMode::diloco && !plan.diloco.offload_outer_state) {
    mem.outer_state_bytes = kOuterStateBytes * p / shards;  // 1 without sharding
  }
}

// FSDP transients: the current and the prefetched unit's gathered weights plus one unit's unsharded gradients
// [Zhao et al. 2023 §3.2.1, §3.4.2; docs/model.md §7.6]. A unit is plan.fsdp_unit_layers blocks (at most the
// stage's), or the embedding / head on the stage that holds it when that is larger.
double fsdp_buffers_bytes(const Scenario& s, const ParameterCounts& params, const StageMemoryTerms& terms,
                          const RankShape& r, double stage_params, double p) {
  const PlanSpec& plan = s.plan;
  const bool deepspeed = plan.stack == Stack::deepspeed || plan.stack == Stack::deepspeed_2021;
  if (deepspeed && plan.sharding == Sharding::fsdp) {
    // DeepSpeed ZeRO-3 gathers one submodule (a matrix, or the embedding) at a time, the resident set capped at
    // stage3_max_live_parameters unless one submodule is larger, plus the prefetch bucket; gradients leave in
    // reduce buckets (§7.6).
    const ModelSpec& m = s.model;
    const double gated = m.ffn_type == FfnType::swiglu ? 2.0 : 1.0;
    const double qkv = static_cast<double>(m.hidden) * (m.heads + 2.0 * m.kv_heads) * m.head_dim;
    double submodule = std::max(static_cast<double>(m.hidden) * m.ffn_hidden * gated, qkv) / plan.tp;
    if (r.holds_embedding || r.holds_head) submodule = std::max(submodule, params.embedding / plan.tp);
    const double resident = std::max(submodule, std::min(kDeepSpeedMaxLiveParams, params.layer / plan.tp));
    return kWeightBytes * (resident + kDeepSpeedPrefetchParams) +
           kUnitGradBytes * std::min(kDeepSpeedReduceBucketElements, stage_params / plan.tp);
  }
  if (plan.sharding != Sharding::fsdp && plan.sharding != Sharding::hsdp) return 0.0;
  double unit = fsdp_unit_blocks(plan, r.layers) * params.layer;
  if (r.holds_embedding || r.holds_head) unit = std::max(unit, params.embedding);
  unit /= plan.tp;
  // reshard_after_forward: false keeps every unit's gathered weights from its forward to its backward: the whole
  // stage's 16-bit weights stay resident besides the shards (FSDP2; docs/model.md §7.6).
  double bytes = plan.reshard_after_forward ? (2.0 * kWeightBytes + kUnitGradBytes) * unit
                                            : kWeightBytes * p + kUnitGradBytes * unit;
  // FSDP2's fp8 all-gather gathers a block's matrices at 1 byte (docs/model.md §2.2); the embedding unit stays 16-bit.
  const bool unit_is_block = !(r.holds_embedding || r.holds_head) || params.layer >= params.embedding;
  const double gathered_blocks = plan.reshard_after_forward ? 2.0 * fsdp_unit_blocks(plan, r.layers) : r.layers;
  if (terms.fp8.param_gather && unit_is_block)
    bytes -= gathered_blocks * (kWeightBytes - kFp8Bytes) * terms.fp8_block_weight_params / plan.tp;
  return bytes;
}

// Activations. Rank r holds its warm-up forwards plus one before its first backward: 1F1B p - r micro-batches, the
// interleaved schedule 2 (p - r - 1) + (v - 1) p + 1 chunk micro-batches of 1/v of the stage each, at most the
// m (x v) of the step (Megatron-LM core_v0.19.0 megatron/core/pipeline_parallel/schedules.py
// get_pp_rank_microbatches; for rank 0 this is Korthikanti et al. 2022 §4.2.3's p (1 + (p - 1) / (p v))).
double activations_bytes(const PlanSpec& plan, const StageMemoryTerms& terms, const RankShape& r, int microbatches) {
  const double layers_per_stage = r.layers;
  const double per_layer = terms.per_layer_bytes;
  double in_flight = 1.0;
  if (plan.pp > 1) {
    const double depth = plan.pp, v = plan.interleave;
    in_flight = plan.interleave > 1 ? std::min(2.0 * (depth - r.rank - 1) + (v - 1) * depth + 1, microbatches * v) / v
                                    : std::min<double>(depth - r.rank, microbatches);
    if (r.dual && layers_per_stage > 0) in_flight = r.dual_rank.activation_block_microbatches / layers_per_stage;  // §5.8
  }
  // Partial recompute: the checkpointed blocks keep their input only, the others every activation (§7.5).
  const double checkpointed = recomputed_blocks(plan, layers_per_stage);
  const double per_kept_layer = checkpointed < layers_per_stage ? terms.per_kept_layer_bytes : 0.0;
  // MoE hook: routed copies and dispatch buffers of the MoE blocks (docs/model.md §15.5).
  double bytes = (per_layer * checkpointed + per_kept_layer * (layers_per_stage - checkpointed) +
                  terms.moe_extra_bytes * layers_per_stage) *
                 in_flight;
  // Full recompute: plus the working set of the one block being recomputed (its full activations, no recompute);
  // op_selective: plus what the one block being recomputed re-creates before its backward (§7.5).
  if (plan.recompute == Recompute::full || plan.recompute == Recompute::op_selective)
    bytes += terms.recompute_working_set_bytes;
  // fp8 GEMM inputs saved in fp8 by the blocks that keep their activations (docs/model.md §2.2, §7.3).
  const double kept_blocks = plan.recompute == Recompute::full ? layers_per_stage - checkpointed : layers_per_stage;
  bytes += terms.fp8_saved_delta_bytes * kept_blocks * in_flight;
  return bytes;
}

}  // namespace

MemoryBreakdown stage_memory(const Scenario& s, const IslandLayout& l, const ParameterCounts& params,
                             const StageMemoryTerms& terms, int microbatches, StagePosition position) noexcept {
  const PlanSpec& plan = s.plan;
  const RankShape r = rank_shape(plan, terms, position);
  const double stage_params = rank_params(s, params, r, position);
  const double p = stage_params / plan.tp;  // after the TP split
  MemoryBreakdown mem;
  model_states(plan, l, terms, r.layers, p, mem);
  mem.fsdp_buffers_bytes = fsdp_buffers_bytes(s, params, terms, r, stage_params, p);
  mem.activations_bytes = activations_bytes(plan, terms, r, microbatches);
  // Host-memory offload (docs/model.md §7.15, §7.16): the offloaded blocks' activations and optimizer share leave.
  if (plan.activation_offload_layers > 0) mem.activations_bytes *= activation_kept_share(plan, r.layers);
  remove_offloaded_states(plan, mem);
  if (r.holds_head) mem.logits_bytes = terms.logits_bytes;
  mem.runtime_overhead_bytes = s.runtime.runtime_overhead_bytes;
  // MoE hook (§15.5): the stage's MoE blocks, and on the stage with the head the MTP modules' routed experts, counted
  // in units of the average block's experts.
  const double mtp_blocks = r.holds_head && params.expert_layer > 0 ? mtp_routed_params(s.model) / params.expert_layer : 0.0;
  mem.expert_states_bytes = expert_states_bytes(s, l, params, r.layers + mtp_blocks);
  return mem;
}

}  // namespace shardmeter::model
