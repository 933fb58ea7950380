#include "model/island_step.hpp"

#include <algorithm>

#include "model/collectives.hpp"
#include "model/kernel_time.hpp"
#include "model/layer_cost.hpp"
#include "model/memory.hpp"
#include "model/overlap.hpp"

namespace shardmeter::model {

namespace {

constexpr double kActivationBytes = 2.0;
constexpr double kParamGatherBytes = 2.0;  // ZeRO/FSDP gather bf16 parameters

// HBM bytes the optimizer update touches per local parameter: read the gradient (4, fp32 main grad), read and
// write fp32 master weights and each state, write the bf16 copy (2). AdamW: 4 + 8 + 8 + 8 + 2 = 30.
double optimizer_update_bytes_per_param(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::adamw: return 30.0;
    case Optimizer::adamw_8bit: return 18.0;
    case Optimizer::sgd_momentum:
    case Optimizer::lion: return 22.0;
  }
  return 30.0;
}

// Point-to-point activation (forward) or gradient (backward) between neighbouring stages, per micro-batch.
// Megatron's scatter/gather optimisation (or SP) splits the message across the t ranks of the stage.
double pipeline_p2p_s(const ModelSpec& m, const PlanSpec& plan, int micro_batch, const IslandLayout& l) {
  if (plan.pp <= 1) return 0.0;
  const double bytes = kActivationBytes * micro_batch * static_cast<double>(m.seq_len) / plan.cp * m.hidden / plan.tp;
  const double bw = l.pp_crosses_domain ? l.links.scaleout_bytes_per_s : l.links.scaleup_bytes_per_s;
  const double lat = l.pp_crosses_domain ? l.links.scaleout_latency_s : l.links.scaleup_latency_s;
  return p2p_s(bytes, bw, lat);
}

}  // namespace

IslandStep island_step(const Scenario& s, const IslandSpec& island, const ParameterCounts& params,
                       double sequences_per_replica) noexcept {
  const ModelSpec& m = s.model;
  const PlanSpec& plan = s.plan;
  const GpuSpec& gpu = island.gpu;
  const int b = s.training.micro_batch;

  IslandStep st;
  st.layout = make_layout(island, plan);
  const IslandLayout& l = st.layout;
  const double mb = std::max(1.0, sequences_per_replica / b);  // micro-batches per replica per step
  st.microbatches = static_cast<int>(mb + 0.5);

  // ---- one micro-batch through one stage -------------------------------------------------------------
  const LayerCost lc = layer_cost(m, gpu, plan, s.training.precision, b, l);
  const double layers_per_stage = static_cast<double>(m.layers) / plan.pp;
  const PassCost logits = logits_cost(m, gpu, s.training.precision, b, l);

  const double body_compute = layers_per_stage * (lc.forward.compute_s() + lc.backward.compute_s());
  const double body_recompute = layers_per_stage * (lc.recompute.compute_s() + lc.recompute.memory_s);
  const double body_memory = layers_per_stage * (lc.forward.memory_s + lc.backward.memory_s);
  const double body_tp =
      layers_per_stage * (lc.forward.tp_comm_s + lc.backward.tp_comm_s + lc.recompute.tp_comm_s);
  const double fwd_compute = layers_per_stage * lc.forward.compute_s();
  const double bwd_compute = layers_per_stage * lc.backward.compute_s();

  // Pipeline p2p: forward activations and backward gradients, v times per micro-batch when interleaved.
  const double p2p = 2.0 * plan.interleave * pipeline_p2p_s(m, plan, b, l);

  // Per-micro-batch sharded-DP traffic. Parameters and gradients are per GPU after TP/PP.
  const MemoryBreakdown mem_first =
      stage_memory(s, island, l, params, st.microbatches, plan.pp > 1 ? StagePosition::first : StagePosition::only);
  const MemoryBreakdown mem_last =
      plan.pp > 1 ? stage_memory(s, island, l, params, st.microbatches, StagePosition::last) : mem_first;
  double stage_params = layers_per_stage * params.layer + (plan.pp > 1 ? 0.0 : params.embedding + params.output_head);
  if (plan.pp > 1) stage_params += std::max(params.embedding, params.output_head > 0 ? params.output_head : params.embedding);
  st.params_per_gpu = stage_params / plan.tp;
  const double grad_bytes = st.params_per_gpu * s.training.grad_reduce_bytes;
  const double param_bytes = st.params_per_gpu * kParamGatherBytes;
  st.grad_bytes_per_gpu = grad_bytes;

  const double kappa = gpu.overlap_slowdown;
  double fsdp_mb = 0;   // exposed per micro-batch
  double dp_step = 0;   // exposed per step
  const bool fully_sharded = plan.sharding == Sharding::fsdp || plan.sharding == Sharding::hsdp;
  if (fully_sharded) {
    // Forward all-gather, backward all-gather and gradient reduce-scatter every micro-batch (ZeRO §7,
    // FSDP §3.2: 1.5x DDP volume), prefetched under the pass's compute; the first gather and the last
    // reduce-scatter of the pass (one unit each) cannot hide.
    const double ag = hierarchical_all_gather_s(param_bytes, l.shard_group, l.links);
    const double rs = hierarchical_reduce_scatter_s(grad_bytes, l.shard_group, l.links);
    const double units = std::max(1.0, layers_per_stage);
    fsdp_mb = exposed_after_overlap(ag, fwd_compute, kappa) + exposed_after_overlap(ag + rs, bwd_compute, kappa) + (ag + rs) / units;
    if (plan.sharding == Sharding::hsdp) {
      // Replicas all-reduce their gradient shard once per step, overlapped with the last backward.
      const double ar = hierarchical_all_reduce_s(grad_bytes / l.dp_shard, l.replicate_group, l.links);
      dp_step += plan.overlap_grad_reduce ? exposed_after_overlap(ar, bwd_compute, kappa) : ar;
    }
  } else if (l.dp > 1) {
    // DDP all-reduce, or ZeRO-1/2 reduce-scatter + parameter all-gather: same volume (ZeRO §7).
    if (plan.sharding == Sharding::zero2) {
      const double rs = hierarchical_reduce_scatter_s(grad_bytes, l.dp_group, l.links);
      fsdp_mb = exposed_after_overlap(rs, bwd_compute, kappa);  // ZeRO-2 reduces gradients every micro-batch
    }
    if (plan.sharding == Sharding::none) {
      const double ar = hierarchical_all_reduce_s(grad_bytes, l.dp_group, l.links);
      dp_step += plan.overlap_grad_reduce ? exposed_after_overlap(ar, bwd_compute, kappa) : ar;
    } else {
      if (plan.sharding == Sharding::zero1) {
        const double rs = hierarchical_reduce_scatter_s(grad_bytes, l.dp_group, l.links);
        dp_step += plan.overlap_grad_reduce ? exposed_after_overlap(rs, bwd_compute, kappa) : rs;
      }
      const double ag = hierarchical_all_gather_s(param_bytes, l.dp_group, l.links);
      dp_step += plan.overlap_param_gather ? exposed_after_overlap(ag, fwd_compute, kappa) : ag;
    }
  }

  const double body = body_compute + body_recompute + body_memory + body_tp + fsdp_mb;
  const double first_stage_mb = body + (plan.pp > 1 ? p2p : 0.0);
  const double last_stage_mb = body + logits.total_s() + (plan.pp > 1 ? p2p : 0.0);
  const double slowest_mb = std::max(first_stage_mb, last_stage_mb);
  const double average_mb = body + logits.total_s() / plan.pp + (plan.pp > 1 ? p2p : 0.0);
  st.stage_microbatch_s = slowest_mb;
  st.backward_window_s = bwd_compute;

  // ---- the step: steady state at the slowest stage + fill/drain bubble (p-1)/v [Narayanan et al. 2021 §2.2]
  const double steady = mb * slowest_mb;
  const double bubble = (plan.pp - 1.0) / plan.interleave * average_mb;
  // Attribute the steady state to the slowest stage's components in proportion.
  const bool last_is_slowest = last_stage_mb >= first_stage_mb;
  const double logits_part = last_is_slowest ? logits.total_s() : 0.0;
  const double share = steady / slowest_mb;
  TimeBreakdown& t = st.time;
  t.compute_s = share * (body_compute + (last_is_slowest ? logits.gemm_s : 0.0));
  t.recompute_s = share * body_recompute;
  t.memory_bound_s = share * (body_memory + (logits_part - (last_is_slowest ? logits.gemm_s : 0.0)));
  t.tp_comm_s = share * body_tp;
  t.pp_comm_s = share * (plan.pp > 1 ? p2p : 0.0);
  t.dp_comm_s = share * fsdp_mb + dp_step;
  t.bubble_s = bubble;

  // Tied embeddings split across first and last stage: their gradients are all-reduced between the two.
  if (plan.pp > 1 && m.tied_embeddings) {
    const double bytes = params.embedding / plan.tp * s.training.grad_reduce_bytes;
    t.pp_comm_s += ring_all_reduce_s(bytes, 2, l.links.scaleout_bytes_per_s, l.links.scaleout_latency_s);
  }

  // Optimizer update over the locally owned parameters (memory-bound).
  const bool sharded_optimizer = plan.sharding != Sharding::none;
  const double owned = st.params_per_gpu / (sharded_optimizer ? l.dp_shard : 1.0);
  t.optimizer_s = memory_bound_time_s(owned * optimizer_update_bytes_per_param(s.training.optimizer), 4.0, gpu);

  // ---- memory --------------------------------------------------------------------------------------
  st.memory = mem_first.total() >= mem_last.total() ? mem_first : mem_last;
  st.memory_bytes = st.memory.total();
  st.capacity_bytes = usable_memory_bytes(gpu, s.runtime);
  st.fits = st.memory_bytes <= st.capacity_bytes;
  return st;
}

}  // namespace shardmeter::model
