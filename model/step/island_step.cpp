#include "model/step/island_step.hpp"

#include <algorithm>
#include <cmath>

#include "model/comm/collectives.hpp"
#include "model/comm/contention.hpp"
#include "model/parallel/dualpipe.hpp"
#include "model/parallel/fp8.hpp"
#include "model/comm/fsdp_exposure.hpp"
#include "model/kernels/kernel_time.hpp"
#include "model/step/host_offload.hpp"
#include "model/step/layer_cost.hpp"
#include "model/memory/memory.hpp"
#include "model/moe/moe_cost.hpp"
#include "model/memory/moe_memory.hpp"
#include "model/comm/nccl_algorithm.hpp"
#include "model/comm/network_profile.hpp"
#include "model/parallel/recompute.hpp"
#include "model/memory/state_bytes.hpp"
#include "model/kernels/overlap.hpp"
#include "model/step/rank_jitter.hpp"
#include "model/parallel/pipeline_stages.hpp"
#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

namespace {

// Point-to-point activation (forward) or gradient (backward) between neighbouring stages, per micro-batch.
// Megatron's scatter/gather optimisation (or SP) splits the message across the t ranks of the stage.
double pipeline_p2p_s(const ModelSpec& m, const PlanSpec& plan, int micro_batch, const IslandLayout& l) {
  if (plan.pp <= 1) return 0.0;
  const double bytes = kActivationBytes * micro_batch * static_cast<double>(m.seq_len) / plan.cp * m.hidden / plan.tp;
  const double bw = l.pp_crosses_domain ? l.links.scaleout_bytes_per_s : l.links.scaleup_bytes_per_s;
  const double lat = l.pp_crosses_domain ? l.links.scaleout_latency_s : l.links.scaleup_latency_s;
  return p2p_s(bytes, bw, lat);
}

// Data-parallel collectives of one island, split into what each micro-batch and each step leaves exposed.
struct DpCost {
  double per_microbatch_s = 0;
  double per_step_s = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::none;  // of the gradient reduction (FSDP: the gathers)
};

// What one GPU's data-parallel collectives move and the compute they may hide behind.
struct DpTraffic {
  double grad_bytes = 0;             // gradient bytes the GPU contributes to the reduction
  double param_bytes = 0;            // parameter bytes ZeRO/FSDP gathers for it
  double units = 0;                  // FSDP units per pass (the fullest stage's layers)
  double forward_window_s = 0;       // forward compute the gathers hide behind
  double backward_window_s = 0;      // backward compute the reductions hide behind
  const GpuSpec* gpu = nullptr;      // for the contention of the DP collectives with the compute they overlap (§6.6)
  double wan_per_step_s = 0;         // WanTraffic::per_step_s: the cross-island stage of the step's reduction
  double wan_per_microbatch_s = 0;   // WanTraffic::per_microbatch_s: a shard group spanning islands
};

// All-gather (or reduce-scatter) of `bytes` over the FSDP shard group. DeepSpeed ZeRO-3 of 2021 gathers each
// parameter tensor with its own flat ring over every shard rank, so a ring crossing nodes runs at each GPU's NIC
// share, without the node-level hierarchy (docs/model.md §6.7).
CollectiveCost shard_collective(double bytes, const PlanSpec& plan, const IslandLayout& l) {
  if (plan.stack == Stack::deepspeed_2021 && l.shard_group.nodes > 1) {
    const int ranks = l.shard_group.nodes * l.shard_group.per_node;
    return {ring_all_gather_s(bytes, ranks, l.links.scaleout_bytes_per_s, l.links.scaleout_latency_s),
            CollectiveAlgorithm::ring, false};
  }
  return nccl_collective(NetworkOp::all_gather, bytes, l.shard_group, l.links);
}

DpCost dp_cost(const PlanSpec& plan, const IslandLayout& l, const DpTraffic& in) {
  DpCost c;
  // Each collective slows the compute it hides under at its own average rate, bytes through the GPU over its time
  // (§6.6); FSDP's gathers and reduce-scatters share one NCCL stream: their bytes over their time.
  auto slowdown = [&](GroupPlacement group, double bytes, double comm) {
    return in.gpu != nullptr ? collective_contention(*in.gpu, group, bytes, comm) : 0.0;
  };
  auto overlapped = [&](bool overlap, double comm, double window, double k) {
    return overlap ? exposed_after_overlap(comm, window, k) : comm;
  };
  if (plan.sharding == Sharding::fsdp || plan.sharding == Sharding::hsdp) {
    // Forward all-gather, backward all-gather and gradient reduce-scatter every micro-batch (ZeRO §7,
    // FSDP §3.2: 1.5x DDP volume).
    // (Without resharding after forward the backward gathers nothing: FsdpPass::backward_gathers.)
    const double wan_share = in.wan_per_microbatch_s / 3.0;
    const CollectiveCost gather = shard_collective(in.param_bytes, plan, l);
    c.algorithm = gather.algorithm;
    const double ag = gather.time_s + wan_share;
    // The reduce-scatter is priced as the gather (shard_collective): of as many bytes (16-bit gradients, no fp8
    // gather) it is the same call, not made twice.
    const double rs =
        (in.grad_bytes == in.param_bytes ? gather.time_s : shard_collective(in.grad_bytes, plan, l).time_s) + wan_share;
    FsdpPass pass;
    pass.all_gather_s = ag;
    pass.reduce_scatter_s = rs;
    pass.units = in.units;
    pass.forward_window_s = in.forward_window_s;
    pass.backward_window_s = in.backward_window_s;
    pass.slowdown = slowdown(l.shard_group, in.param_bytes + in.grad_bytes, ag + rs);
    pass.gather_overlaps = plan.overlap_param_gather;
    pass.reduce_overlaps = plan.overlap_grad_reduce;
    pass.backward_gathers = plan.reshard_after_forward;
    c.per_microbatch_s = fsdp_exposed_s(pass);
    if (plan.sharding == Sharding::hsdp) {
      // Replicas all-reduce their gradient shard once per step, overlapped with the last backward.
      const double ar =
          hierarchical_all_reduce_s(in.grad_bytes / l.state_shards, l.replicate_group, l.links) + in.wan_per_step_s;
      const double replica_bytes = 2.0 * in.grad_bytes / l.state_shards;
      c.per_step_s = overlapped(plan.overlap_grad_reduce, ar, in.backward_window_s,
                                slowdown(l.replicate_group, replica_bytes, ar));
    }
    return c;
  }
  if (l.dp_cp <= 1 && in.wan_per_step_s <= 0) return c;
  // DDP all-reduce, or ZeRO-1/2 reduce-scatter + parameter all-gather: the same volume (ZeRO §7), over the
  // dp x cp ranks that hold the same parameters (§6.1). Across islands the extra WAN stage sits between the
  // intra-island halves (model/step/sync_islands.cpp).
  if (plan.sharding == Sharding::none) {
    // NCCL's all-reduce; its plateau is capped so it never costs more than its two halves (§3.5).
    const CollectiveCost reduce = nccl_collective(NetworkOp::all_reduce, in.grad_bytes, l.dp_cp_group, l.links);
    c.algorithm = reduce.algorithm;
    const double ar = reduce.time_s + in.wan_per_step_s;
    c.per_step_s = overlapped(plan.overlap_grad_reduce, ar, in.backward_window_s,
                              slowdown(l.dp_cp_group, 2.0 * in.grad_bytes, ar));
    return c;
  }
  const CollectiveCost scatter = nccl_collective(NetworkOp::reduce_scatter, in.grad_bytes, l.dp_cp_group, l.links);
  c.algorithm = scatter.algorithm;
  const double rs = scatter.time_s + in.wan_per_step_s / 2.0;
  // The updated parameters' all-gather pays NCCL's latency like the reduce-scatter (§3.5): an all-reduce is never
  // charged more than its two halves.
  // Without a measured network NCCL's model prices an all-gather as the reduce-scatter of as many bytes (§3.5;
  // nccl_collective distinguishes only the all-reduce): with 16-bit gradients the same call is not made twice.
  const bool same_as_scatter = l.links.profile == nullptr && in.param_bytes == in.grad_bytes;
  const double gather_s = same_as_scatter
                              ? scatter.time_s
                              : nccl_collective(NetworkOp::all_gather, in.param_bytes, l.dp_cp_group, l.links).time_s;
  const double ag = gather_s + in.wan_per_step_s / 2.0;
  const double k = slowdown(l.dp_cp_group, in.grad_bytes + in.param_bytes, rs + ag);
  if (plan.sharding == Sharding::zero2) {
    // ZeRO-2 reduces every micro-batch.
    c.per_microbatch_s = exposed_after_overlap(rs, in.backward_window_s, k);
  } else {
    c.per_step_s = overlapped(plan.overlap_grad_reduce, rs, in.backward_window_s, k);
  }
  c.per_step_s += overlapped(plan.overlap_param_gather, ag, in.forward_window_s, k);
  return c;
}

// One micro-batch's blocks on a rank of `n` blocks, split into the reported components.
struct StageBody {
  double compute = 0, recompute = 0, memory = 0, tp = 0;
  double total() const { return compute + recompute + memory + tp; }
};

// What a rank's blocks cost per micro-batch, whatever their count.
struct BlockCosts {
  const LayerCost& lc;
  const Fp8CastCost& casts;
  const PlanSpec& plan;
  double recompute_per_block;  // one recomputed block: its forward again, and under full recompute its fp8 casts
  double layers_per_stage;     // the fullest rank's blocks (its amax reductions are the stage's)

  // The stage's amax reductions scale with its blocks.
  StageBody body(double n) const {
    const double recomputed = recomputed_blocks(plan, n);
    return StageBody{n * (lc.forward.compute_s() + lc.backward.compute_s()), recomputed * recompute_per_block,
                     n * (lc.forward.memory_s + lc.backward.memory_s + casts.per_microbatch_s),
                     n * (lc.forward.tp_comm_s + lc.backward.tp_comm_s) + recomputed * lc.recompute.tp_comm_s +
                         (layers_per_stage > 0 ? casts.amax_per_microbatch_s * n / layers_per_stage : 0.0)};
  }
};

// fp8 can be slower than bf16 only through its named cost (issue 31, docs/model.md §2.2): the cast kernels and amax
// reductions of one block's micro-batch against the GEMM time fp8 saves there (forward, backward and the recomputed
// share); the estimate warns when the casts cost more.
bool fp8_casts_outweigh_gemms(const Scenario& s, const GpuSpec& gpu, const IslandLayout& l, const BlockCosts& blocks,
                              double mb) {
  const PlanSpec& plan = s.plan;
  const LayerCost& lc = blocks.lc;
  const Fp8CastCost& casts = blocks.casts;
  const double layers_per_stage = blocks.layers_per_stage;
  const LayerCost lc16 = layer_cost(s.model, gpu, plan, Precision::bf16, s.training.micro_batch, l);
  const double recomputed_share = recomputed_blocks(plan, layers_per_stage) / layers_per_stage;
  const double saved = (lc16.forward.gemm_s - lc.forward.gemm_s) + (lc16.backward.gemm_s - lc.backward.gemm_s) +
                       recomputed_share * (lc16.recompute.gemm_s - lc.recompute.gemm_s);
  const double cast_cost = casts.per_microbatch_s + casts.amax_per_microbatch_s / layers_per_stage +
                           casts.per_step_s / mb +
                           (plan.recompute == Recompute::full ? recomputed_share * casts.recompute_s : 0.0);
  return cast_cost > saved;
}

// Parameters per GPU of the rank with the most (its blocks + embedding or head), after TP.
double params_per_gpu(const PlanSpec& plan, const ParameterCounts& params, const StageLayers& stages,
                      double layers_per_stage) {
  double stage_params = layers_per_stage * params.layer;
  if (plan.pp > 1) {
    const double head = params.output_head > 0 ? params.output_head : params.embedding;
    stage_params = std::max({stages.first * params.layer + params.embedding, stages.middle * params.layer,
                             stages.last * params.layer + head});
  } else {
    stage_params += params.embedding + params.output_head;
  }
  return stage_params / plan.tp;
}

// Data-parallel traffic inside the island only (`local`), and with the island's share of the WAN traffic (`all`;
// the difference is wan_s).
struct DpCosts {
  DpCost local, all;
};

DpCosts dp_costs(const ModelSpec& m, const PlanSpec& plan, const IslandLayout& l, const GpuSpec& gpu,
                 const IslandStep& st, const Fp8Use& fp8, const WanTraffic& wan, double layers_per_stage,
                 double fwd_window, double bwd_window) {
  DpTraffic dp_in;
  dp_in.grad_bytes = st.grad_bytes_per_gpu;
  // With fp8 parameters the GEMM weights are gathered at 1 byte (docs/model.md §2.2); gradients keep their dtype.
  const double fp8_gathered = fp8.param_gather ? layers_per_stage * fp8_block_weight_params(m) / plan.tp : 0.0;
  dp_in.param_bytes = st.params_per_gpu * kWeightBytes - (kWeightBytes - kFp8Bytes) * fp8_gathered;
  dp_in.units = fsdp_units(plan, layers_per_stage);  // plan.fsdp_unit_layers blocks per unit (§6.3)
  dp_in.forward_window_s = fwd_window;
  dp_in.backward_window_s = bwd_window;
  dp_in.gpu = &gpu;
  DpCosts c{dp_cost(plan, l, dp_in), {}};
  // Without WAN traffic both are the same call (dp_in unchanged): computed once.
  c.all = c.local;
  if (wan.per_step_s != 0 || wan.per_microbatch_s != 0) {
    dp_in.wan_per_step_s = wan.per_step_s;
    dp_in.wan_per_microbatch_s = wan.per_microbatch_s;
    c.all = dp_cost(plan, l, dp_in);
  }
  return c;
}

// Each rank's micro-batch: its blocks, the exposed DP per micro-batch and the p2p; the last adds the output layer.
struct StageTimes {
  StageBody first_body, middle_body, last_body;
  double first_mb = 0, middle_mb = 0, last_mb = 0, slowest_mb = 0;
  bool last_is_slowest = false;
  const StageBody& slowest_body() const {
    return last_is_slowest ? last_body : (middle_mb > first_mb ? middle_body : first_body);
  }
};

StageTimes stage_times(const BlockCosts& blocks, const StageLayers& stages, const PassCost& logits,
                       double per_rank_fixed) {
  StageTimes x;
  // Equal block counts give equal bodies (the same call): each distinct count is computed once.
  x.first_body = blocks.body(stages.first);
  x.middle_body = stages.middle == stages.first ? x.first_body : blocks.body(stages.middle);
  x.last_body = stages.last == stages.first    ? x.first_body
                : stages.last == stages.middle ? x.middle_body
                                               : blocks.body(stages.last);
  x.first_mb = x.first_body.total() + per_rank_fixed;
  x.middle_mb = stages.middle > 0 ? x.middle_body.total() + per_rank_fixed : 0.0;
  x.last_mb = x.last_body.total() + logits.total_s() + per_rank_fixed;
  x.last_is_slowest = x.last_mb >= std::max(x.first_mb, x.middle_mb);
  x.slowest_mb = std::max({x.first_mb, x.middle_mb, x.last_mb});
  return x;
}

// Every rank's micro-batch summed: the blocks are linear in the count except the capped recompute
// (recompute_layers), which is summed rank by rank.
double all_ranks_microbatch_s(const ModelSpec& m, const BlockCosts& blocks, const StageLayers& stages,
                              const StageTimes& x, const PassCost& logits, double per_rank_fixed) {
  const PlanSpec& plan = blocks.plan;
  double recomputed_sum = m.layers;
  if (plan.recompute == Recompute::full && plan.recompute_layers > 0) {
    recomputed_sum = 0;
    for (int r = 0; r < plan.pp; ++r) recomputed_sum += recomputed_blocks(plan, rank_layers(m, plan, r));
  }
  const StageBody all_blocks = m.layers == stages.first ? x.first_body : blocks.body(m.layers);
  return all_blocks.total() +
         (recomputed_sum - recomputed_blocks(plan, m.layers)) * (blocks.recompute_per_block + blocks.lc.recompute.tp_comm_s) +
         logits.total_s() + plan.pp * per_rank_fixed;
}

// MoE hook (docs/model.md §15.4, §15.5): token all-to-alls of the stage's MoE blocks; the expert gradients' reduction
// over the expert-data-parallel group and their optimizer update. Hidden communication slows the compute it overlaps
// by its group's SM/HBM contention (§6.6), as the dense collectives do.
void add_moe_step_terms(const Scenario& s, const GpuSpec& gpu, const IslandLayout& l, const ParameterCounts& params,
                        const BlockCosts& blocks, double mb, double bwd_window, TimeBreakdown& t) {
  const PlanSpec& plan = s.plan;
  const LayerCost& lc = blocks.lc;
  const Fp8CastCost& casts = blocks.casts;
  const double layers_per_stage = blocks.layers_per_stage;
  MoeBlockCost a2a;
  a2a.all_to_all_s = lc.ep_all_to_all_s;
  a2a.all_to_all_bytes = lc.ep_all_to_all_bytes;
  // Each overlapped all-to-all hides under a whole piece of another micro-batch's block on the compute stream: its
  // GEMMs and attention, its memory-bound kernels (backward twice the forward, §2.4) and its fp8 casts (half in
  // each pass, assumed), split into the routed experts' piece and the attention piece (docs/model.md §15.4).
  const double experts_fwd = lc.ep_experts_fwd_s + lc.ep_experts_memory_fwd_s;
  const double fwd = lc.forward.compute_s() + lc.forward.memory_s + 0.5 * casts.per_microbatch_s;
  const double bwd = lc.backward.compute_s() + lc.backward.memory_s + 0.5 * casts.per_microbatch_s;
  const double experts_casts = 0.5 * casts.experts_per_microbatch_s;
  const EpOverlapWindows w{fwd - experts_fwd - experts_casts, experts_fwd + experts_casts,
                           bwd - 2.0 * experts_fwd - experts_casts, 2.0 * experts_fwd + experts_casts};
  t.ep_comm_s = mb * layers_per_stage *
                ep_comm_per_block_s(a2a, plan, w, mb, ep_overlap_slowdown(gpu, plan, l, a2a));
  const double expert_params = expert_params_per_gpu(params, l, layers_per_stage);
  const double expert_grads = expert_params * s.training.grad_reduce_bytes;
  const double reduce = plan.sharding == Sharding::none
                            ? hierarchical_all_reduce_s(expert_grads, l.edp_group, l.links)
                            : hierarchical_reduce_scatter_s(expert_grads, l.edp_group, l.links) +
                                  hierarchical_all_gather_s(expert_params * kWeightBytes, l.edp_group, l.links);
  const double reduce_bytes = plan.sharding == Sharding::none ? 2.0 * expert_grads
                                                              : expert_grads + expert_params * kWeightBytes;
  t.dp_comm_s += plan.overlap_grad_reduce
                     ? exposed_after_overlap(reduce, bwd_window, collective_contention(gpu, l.edp_group, reduce_bytes, reduce))
                     : reduce;
  const double expert_owned = expert_params / (plan.sharding != Sharding::none ? l.edp : 1.0);
  t.optimizer_s +=
      memory_bound_time_s(expert_owned * optimizer_update_bytes_per_param(s.training, plan.stack), 4.0, gpu);
}

// Host-memory offload (docs/model.md §7.15, §7.16): the activation copies the host link cannot hide, per
// micro-batch; the optimizer share updated on the host instead of the GPU, with its copies and CPU step.
void add_host_offload_terms(const Scenario& s, const GpuSpec& gpu, const StageLayers& stages, const Fp8Use& fp8,
                            double owned, double mb, double fwd_window, double bwd_window, TimeBreakdown& t) {
  const PlanSpec& plan = s.plan;
  if (plan.activation_offload_layers > 0) {
    const StageMemoryTerms terms = stage_memory_terms(s, stages, fp8);
    const double block = terms.per_layer_bytes + terms.moe_extra_bytes + terms.fp8_saved_delta_bytes;
    t.host_offload_s += mb * activation_offload_exposed_s(block, plan.activation_offload_layers, stages.fullest(),
                                                          fwd_window, bwd_window, gpu);
  }
  const double f = plan.optimizer_offload_fraction;
  if (f > 0) {
    t.optimizer_s *= 1.0 - f;  // the GPU updates the rest
    OptimizerOffloadWork w;
    w.params = f * owned;
    w.grad_bytes_per_param = gradient_bytes_per_param(s.training, plan.stack);
    w.param_bytes_per_param = kWeightBytes;
    w.backward_s = bwd_window;
    t.host_offload_s += optimizer_offload_s(plan.stack, w, gpu);
  }
}

// Every step waits for the slowest rank it synchronises with (docs/model.md §5.6): the job's GPUs, or the island's
// under DiLoCo (inner steps are island-local). The wait grows with the rank count and the work per micro-batch.
// With a pipeline the steady state runs at the slowest rank's micro-batch, and the ranks carry unequal loads: the
// last stage's GPUs (ranks / p of them, with the output layer) and the others, taken at the heavier of rank 0 and
// rank 1. A rank of a lighter stage delays the pipeline only by what its draw exceeds the heavier stage's.
double straggler_s(const Scenario& s, const IslandSpec& island, const StageTimes& x, const PassCost& logits,
                   const TimeBreakdown& t, double mb) {
  const PlanSpec& plan = s.plan;
  const double ranks = plan.sync == SyncMode::diloco ? island.gpus : static_cast<double>(s.cluster.total_gpus());
  if (plan.pp <= 1) return rank_jitter_s(t.compute_s + t.recompute_s + t.memory_bound_s, ranks);
  const StageBody& other_body = x.middle_mb > x.first_mb ? x.middle_body : x.first_body;
  const double last_ranks = ranks / plan.pp;
  const double pace_mb = slowest_of_two_groups_s(
      x.last_mb, x.last_body.compute + x.last_body.recompute + x.last_body.memory + logits.gemm_s + logits.memory_s,
      last_ranks, std::max(x.first_mb, x.middle_mb), other_body.compute + other_body.recompute + other_body.memory,
      ranks - last_ranks);
  return mb * std::max(0.0, pace_mb - x.slowest_mb);
}

// Memory of the fullest rank. What the ranks share is computed once (stage_memory_terms); the first, last and
// middle rank differ in their blocks, embedding / head and micro-batches in flight.
void size_memory(const Scenario& s, const IslandLayout& l, const ParameterCounts& params, const StageLayers& stages,
                 const Fp8Use& fp8, IslandStep& st) {
  const PlanSpec& plan = s.plan;
  const StageMemoryTerms mem_terms = stage_memory_terms(s, stages, fp8);
  const MemoryBreakdown mem_first = stage_memory(s, l, params, mem_terms, st.microbatches,
                                                 plan.pp > 1 ? StagePosition::first : StagePosition::only);
  const MemoryBreakdown mem_last =
      plan.pp > 1 ? stage_memory(s, l, params, mem_terms, st.microbatches, StagePosition::last) : mem_first;
  // Each rank's total is summed once (the same sum as MemoryBreakdown::total() on the chosen rank).
  const double first_total = mem_first.total();
  const double last_total = plan.pp > 1 ? mem_last.total() : first_total;
  const bool first_fuller = first_total >= last_total;
  st.memory = first_fuller ? mem_first : mem_last;
  st.memory_bytes = first_fuller ? first_total : last_total;
  // Rank 1 (pp >= 3): with uneven ranks it may hold more blocks than rank 0 with one micro-batch fewer. With as many
  // blocks as rank 0 and non-negative per-block terms, every part of its memory is at most rank 0's (no embedding,
  // the same blocks, at most as many micro-batches in flight; stage_memory), so neither is its sum (rounding is
  // monotonic): it cannot replace the rank already chosen and is not sized. Any NaN sizes it.
  const bool middle_within_first = stages.middle == stages.first && stages.first >= 0 && params.embedding >= 0 &&
                                   mem_terms.per_layer_bytes >= 0 && mem_terms.per_kept_layer_bytes >= 0 &&
                                   mem_terms.moe_extra_bytes >= 0 && mem_terms.fp8_saved_delta_bytes >= 0 &&
                                   mem_terms.fp8_block_weight_params >= 0 && first_total <= st.memory_bytes;
  if (plan.pp > 2 && !middle_within_first) {
    const MemoryBreakdown mem_middle = stage_memory(s, l, params, mem_terms, st.microbatches, StagePosition::middle);
    const double middle_total = mem_middle.total();
    if (middle_total > st.memory_bytes) {
      st.memory = mem_middle;
      st.memory_bytes = middle_total;
    }
  }
}

// The step's parts: steady state at the slowest rank + fill/drain.
void fill_stage_times(const PlanSpec& plan, const StageTimes& x, const PassCost& logits, const DpCosts& dp,
                      const BlockCosts& blocks, double mb, double p2p_local, double p2p_wan, double all_ranks_mb,
                      TimeBreakdown& t) {
  const StageBody& slowest_body = x.slowest_body();
  // With unequal ranks 1F1B takes sum(t_r) + (m - 1) max(t_r) [Zheng et al. 2022 (Alpa) §5.2 eq. 2]: the bubble is
  // sum(t_r) - max(t_r), i.e. (p - 1) t with equal ranks, and the interleaved schedule divides it by v
  // [Narayanan et al. 2021 §2.2].
  t.compute_s = mb * (slowest_body.compute + (x.last_is_slowest ? logits.gemm_s : 0.0));
  t.recompute_s = mb * slowest_body.recompute;
  t.memory_bound_s =
      mb * (slowest_body.memory + (x.last_is_slowest ? logits.memory_s : 0.0)) +
      blocks.layers_per_stage * blocks.casts.per_step_s;
  t.tp_comm_s = mb * slowest_body.tp;
  t.pp_comm_s = mb * (plan.pp > 1 ? p2p_local : 0.0);
  t.dp_comm_s = mb * dp.local.per_microbatch_s + dp.local.per_step_s;
  t.wan_s = mb * ((dp.all.per_microbatch_s - dp.local.per_microbatch_s) + (plan.pp > 1 ? p2p_wan : 0.0)) +
            (dp.all.per_step_s - dp.local.per_step_s);
  t.bubble_s = plan.pp > 1 ? std::max(0.0, all_ranks_mb - x.slowest_mb) / plan.interleave : 0.0;
  // DualPipe: (pp/2 - 1)(F&B + B - 3W) of the slowest stage's micro-batch (docs/model.md §5.8).
  if (uses_dualpipe(plan)) t.bubble_s = dualpipe_bubble_s(plan.pp, x.slowest_mb);
}

// A measured network: does every group stay inside the node counts the profile measured (docs/model.md §3.6)?
bool network_extrapolated(const IslandSpec& island, const IslandLayout& l) {
  if (island.network_profile == nullptr) return false;
  for (const GroupPlacement& g : {l.tp_group, l.cp_group, l.dp_cp_group, l.shard_group, l.replicate_group,
                                  l.ep_group, l.etp_group, l.edp_group})
    if (g.per_node * g.nodes > 1 && !profile_covers(*island.network_profile, g.nodes)) return true;
  return false;
}

}  // namespace

// Flattened: everything the step calls (the layer and logits costs, the GEMM times, the collectives, the stage
// memory of two or three ranks) is inlined into it, with the model's link-time optimisation across files too; that
// removes the calls and the spills of live doubles around them (docs/performance.md, "The engine on one core").
[[gnu::flatten]] IslandStep island_step(const Scenario& s, const IslandSpec& island, const ParameterCounts& params,
                                        double sequences_per_replica, const WanTraffic& wan) noexcept {
  const ModelSpec& m = s.model;
  const PlanSpec& plan = s.plan;
  const GpuSpec& gpu = island.gpu;
  const int b = s.training.micro_batch;

  IslandStep st{.layout = make_layout(island, plan, wan.stages_here), .time = {}, .memory = {}};  // no layout copy
  const IslandLayout& l = st.layout;
  const double mb = std::max(1.0, sequences_per_replica / b);  // micro-batches per replica per step
  // int holds every count a parsed scenario gives (global_batch <= 1e9); the clamp keeps a hand-built one defined.
  st.microbatches = static_cast<int>(std::min(mb + 0.5, 2147483647.0));

  // ---- one micro-batch through one stage -------------------------------------------------------------
  const LayerCost lc = layer_cost(m, gpu, plan, s.training.precision, b, l);
  // Blocks per pipeline rank (docs/model.md §5.4): the fullest rank sets the FSDP units, the recompute working set
  // and the DP windows; every rank's own count sets its time per micro-batch below.
  const StageLayers stages = stage_layers(m, plan);
  const double layers_per_stage = stages.fullest();
  // fp8 (docs/model.md §2.2): the output layer stays 16-bit unless the stack converts it; the cast kernels of the
  // stage's fp8 GEMMs run memory-bound, their amax reductions over the TP group.
  const Fp8Use fp8 = fp8_use(s.training.precision, plan.stack, s.training.fp8_params, s.training.fp8_recipe);
  const Precision logits_precision =
      s.training.precision == Precision::fp8 && !fp8.logits ? Precision::bf16 : s.training.precision;
  const PassCost logits = logits_cost(m, gpu, logits_precision, b, l);
  const Fp8CastCost casts = fp8_cast_cost(m, gpu, plan, fp8, b, layers_per_stage, l);
  const BlockCosts blocks{lc, casts, plan,
                          lc.recompute.compute_s() + lc.recompute.memory_s +
                              (plan.recompute == Recompute::full ? casts.recompute_s : 0.0),
                          layers_per_stage};
  if (s.training.precision == Precision::fp8 && layers_per_stage > 0)
    st.fp8_casts_outweigh_gemms = fp8_casts_outweigh_gemms(s, gpu, l, blocks, mb);

  const double fwd_window = layers_per_stage * lc.forward.compute_s();
  const double bwd_window = layers_per_stage * lc.backward.compute_s();
  st.backward_window_s = bwd_window;
  st.params_per_gpu = params_per_gpu(plan, params, stages, layers_per_stage);
  st.grad_bytes_per_gpu = st.params_per_gpu * s.training.grad_reduce_bytes;

  // Pipeline p2p: forward activations and backward gradients, v times per micro-batch when interleaved.
  const double p2p_local = 2.0 * plan.interleave * pipeline_p2p_s(m, plan, b, l);
  const double p2p_wan = wan.p2p_per_microbatch_s;
  const DpCosts dp = dp_costs(m, plan, l, gpu, st, fp8, wan, layers_per_stage, fwd_window, bwd_window);
  const double p2p = plan.pp > 1 ? p2p_local + p2p_wan : 0.0;
  const double per_rank_fixed = dp.all.per_microbatch_s + p2p;
  const StageTimes x = stage_times(blocks, stages, logits, per_rank_fixed);
  st.stage_microbatch_s = x.slowest_mb;
  const double all_ranks_mb = all_ranks_microbatch_s(m, blocks, stages, x, logits, per_rank_fixed);

  TimeBreakdown& t = st.time;
  fill_stage_times(plan, x, logits, dp, blocks, mb, p2p_local, p2p_wan, all_ranks_mb, t);

  // Tied embeddings split across first and last stage: their gradients are all-reduced between the two.
  if (plan.pp > 1 && m.tied_embeddings) {
    const double bytes = params.embedding / plan.tp * s.training.grad_reduce_bytes;
    t.pp_comm_s += ring_all_reduce_s(bytes, 2, l.links.scaleout_bytes_per_s, l.links.scaleout_latency_s);
  }

  // Optimizer update over the locally owned parameters (memory-bound; 4 kernels assumed, docs/model.md §2.7).
  const double owned = st.params_per_gpu / l.state_shards;
  t.optimizer_s =
      memory_bound_time_s(owned * optimizer_update_bytes_per_param(s.training, plan.stack), 4.0, gpu);  // §2.7
  if (plan.activation_offload_layers > 0 || plan.optimizer_offload_fraction > 0)
    add_host_offload_terms(s, gpu, stages, fp8, owned, mb, fwd_window, bwd_window, t);
  if (lc.ep_all_to_all_s > 0 || params.expert_layer > 0) add_moe_step_terms(s, gpu, l, params, blocks, mb, bwd_window, t);
  t.straggler_s = straggler_s(s, island, x, logits, t, mb);
  st.stage_microbatch_s = x.slowest_mb + t.straggler_s / mb;
  st.fixed_s = t.total() - mb * st.stage_microbatch_s;

  // ---- memory --------------------------------------------------------------------------------------
  size_memory(s, l, params, stages, fp8, st);
  st.capacity_bytes = usable_memory_bytes(gpu, s.runtime, st.memory);
  st.collectives = CollectiveAlgorithms{lc.tp_algorithm, lc.cp_algorithm, dp.local.algorithm};
  st.network_extrapolated = network_extrapolated(island, l);
  st.fits = st.memory_bytes <= st.capacity_bytes;
  return st;
}

}  // namespace shardmeter::model
