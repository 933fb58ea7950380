#pragma once
// How the job is laid out on the cluster: parallelism degrees, sharding, recompute, overlap, and how it spans islands.
#include "model/spec/enums.hpp"

namespace shardmeter::model {

// DiLoCo / Streaming DiLoCo settings (Douillard et al. 2023, arXiv 2311.08105; 2025, arXiv 2501.18512).
struct DilocoSpec {
  int inner_steps = 100;        // H: inner optimizer steps between outer synchronisations
  int outer_bits = 32;          // precision of the pseudo-gradient all-reduce: 32, 16, 8 or 4
  int fragments = 1;            // P: Streaming DiLoCo fragments, synchronised in turn
  int overlap_steps = 0;        // tau: inner steps the outer sync may hide behind
  DilocoFastIslands fast_islands = DilocoFastIslands::wait;
  bool offload_outer_state = false;   // keep theta^(t-1) and outer momentum in host memory
  // Loss-equivalent tokens per trained token (model/job/diloco.hpp). < 0 selects the fitted convergence model
  // (model/job/diloco_convergence.hpp); the H term below is an extra penalty on top of it (default none).
  double token_efficiency = -1;
  double efficiency_loss_per_h_doubling = 0;   // extra fractional efficiency lost per doubling of H beyond 30
};

struct PlanSpec {
  int tp = 1;
  int pp = 1;
  int cp = 1;
  int interleave = 1;                 // virtual pipeline stages per device (v)
  // Uneven pipelines (model/parallel/pipeline_stages.hpp, docs/model.md §5.4). Megatron's explicit counts of the first and
  // last rank (0 = not set), or the layers the embedding and the output head weigh in the balanced split.
  int pp_first_stage_layers = 0;
  int pp_last_stage_layers = 0;
  int pp_embedding_layers = 0;
  int pp_head_layers = 0;
  bool sequence_parallel = false;
  Sharding sharding = Sharding::none;
  int shard_group = 0;                // hsdp: GPUs per shard group (0 = one node)
  Recompute recompute = Recompute::selective;
  // recompute: selective: the submodules re-run, a bit set of RecomputeModule (bit i = value i); default core_attn,
  // Megatron's default (docs/model.md §7.11).
  unsigned recompute_modules = 1u;
  int recompute_layers = 0;           // recompute: full: blocks per stage checkpointed whole (0 = all; §7.5)
  int fsdp_unit_layers = 1;           // fsdp/hsdp: transformer blocks per FSDP unit (wrapping granularity; §6.3, §7.6)
  AttentionKernel attention = AttentionKernel::flash;
  Stack stack = Stack::megatron_te;  // training software stack (docs/model.md §6.7)
  bool overlap_grad_reduce = true;    // DP gradient reduction overlapped with backward
  bool overlap_param_gather = true;   // ZeRO/FSDP parameter all-gathers prefetched under compute
  bool reshard_after_forward = true;  // fsdp/hsdp: free gathered weights after forward, re-gather in backward (§6.3)
  bool tp_comm_overlap = false;       // TP collectives overlapped with GEMMs (userbuffers-style)
  bool tp_dgrad_overlap = false;      // backward dgrad TP collective beside the wgrad GEMM (Megatron async; §4.4)
  SyncMode sync = SyncMode::synchronous;
  bool pp_across_islands = false;     // pipeline stages span islands (activations cross the WAN)
  BatchSplit batch_split = BatchSplit::balanced;
  DilocoSpec diloco;
  // Expert parallelism (MoE models; docs/model.md §15.3). The expert layers fold the same GPUs as ETP x EP x EDP
  // per pipeline stage, as the attention layers fold them as TP x CP x DP (Megatron-Core parallel folding).
  int ep = 1;                         // expert-parallel degree: experts split over this many ranks
  int etp = 1;                        // expert tensor-parallel degree: each expert's matrices split over this many
  EpDispatcher ep_dispatcher = EpDispatcher::alltoall;
  bool ep_overlap = false;            // dispatch/combine overlapped with another micro-batch's computation
  MoeRecompute moe_recompute = MoeRecompute::none;
  // Appended (issue 29): the pipeline schedule (docs/model.md §5.8) and DeepSeek-V3's low-precision caching of saved
  // activations (§7.12).
  PipelineSchedule pipeline_schedule = PipelineSchedule::one_f_one_b;
  bool fp8_activation_cache = false;
  // Appended (issue 29): host-memory offload (docs/model.md §7.15, §7.16). Megatron's --cpu-offloading-num-layers:
  // blocks per stage whose saved activations go to host memory (0 = off); the share of the optimizer state (and
  // fp32 master weights) kept and updated on the host (0 = off; Megatron --optimizer-offload-fraction, DeepSpeed
  // ZeRO-Offload, FSDP CPU offload).
  int activation_offload_layers = 0;
  double optimizer_offload_fraction = 0;
};

}  // namespace shardmeter::model
