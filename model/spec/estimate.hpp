#pragma once
// What the model predicts for one scenario. A plain value: no strings, no allocation.
#include <array>
#include <cstdint>

#include "model/spec/cluster_spec.hpp"
#include "model/spec/enums.hpp"
#include "model/spec/reject_reason.hpp"

namespace shardmeter::model {

// Exposed time per optimizer step, by cause. The components add up to the step time.
struct TimeBreakdown {
  double compute_s = 0;          // GEMMs and attention of forward + backward
  double recompute_s = 0;        // extra forward work from activation recomputation
  double memory_bound_s = 0;     // norms, activations, softmax, dropout, residuals at HBM bandwidth
  double tp_comm_s = 0;          // tensor/sequence- and context-parallel collectives on the critical path
  double pp_comm_s = 0;          // pipeline point-to-point transfers on the critical path
  double bubble_s = 0;           // pipeline fill and drain
  double dp_comm_s = 0;          // exposed data-parallel / ZeRO / FSDP / HSDP collectives inside islands
  double optimizer_s = 0;        // optimizer update (memory-bound)
  double wan_s = 0;              // exposed traffic crossing the WAN
  double straggler_s = 0;        // waiting for the slowest rank (docs/model.md §5.6) and for slower islands (§8.6)
  double ep_comm_s = 0;          // exposed MoE token dispatch/combine all-to-alls (docs/model.md §15.4)
  double host_offload_s = 0;     // exposed host-memory offload: activation copies, CPU optimizer (§7.15, §7.16)

  double total() const {
    return compute_s + recompute_s + memory_bound_s + tp_comm_s + pp_comm_s + bubble_s + dp_comm_s +
           optimizer_s + wan_s + straggler_s + ep_comm_s + host_offload_s;
  }
};

// Peak memory per GPU (the fullest pipeline stage), by tensor class, in bytes.
struct MemoryBreakdown {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double fsdp_buffers_bytes = 0;     // unsharded parameter/gradient units in flight
  double logits_bytes = 0;
  double outer_state_bytes = 0;      // DiLoCo: previous outer parameters + outer momentum
  double runtime_overhead_bytes = 0; // CUDA context, NCCL buffers
  double expert_states_bytes = 0;    // routed experts' weights, gradients and optimizer state (docs/model.md §15.5)

  double total() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + fsdp_buffers_bytes +
           logits_bytes + outer_state_bytes + runtime_overhead_bytes + expert_states_bytes;
  }
};

// Data-parallel degrees, as the model sizes the groups (model/parallel/layout.cpp) and as a framework is launched with them.
struct DataParallelDegrees {
  int data_parallel = 0;             // model replicas
  int dp_shard = 0;                  // ranks of a ZeRO/FSDP shard group (hsdp: the shard group; 1 without sharding)
  int dp_replicate = 0;              // data_parallel / dp_shard
  int microbatches = 0;              // micro-batches per replica per step: the gradient-accumulation steps
};

// The algorithm each kind of collective of an island was charged with (docs/model.md §3.5, §3.6): the TP
// collective, the CP all-gather and the data-parallel gradient reduction (FSDP: the parameter all-gather).
struct CollectiveAlgorithms {
  CollectiveAlgorithm tp = CollectiveAlgorithm::none;
  CollectiveAlgorithm cp = CollectiveAlgorithm::none;
  CollectiveAlgorithm dp = CollectiveAlgorithm::none;
};

struct IslandEstimate {
  double tokens_per_s = 0;           // one island of this entry
  double tokens_per_s_per_gpu = 0;
  double utilization = 0;            // share of wall time spent computing (0-1)
  double batch_share = 0;            // fraction of the global batch one island of this entry processes
  double step_time_s = 0;            // standalone time of its share (before waiting for others)
  double memory_per_gpu_bytes = 0;
  double memory_capacity_bytes = 0;  // usable HBM after the fragmentation reserve
  Bottleneck bottleneck = Bottleneck::compute;
  bool feasible = true;
  TimeBreakdown time;
  MemoryBreakdown memory;
  // Inside one island of this entry. pp_across_islands: the replicas with stages here. Under a balanced batch
  // split, microbatches is the entry's busiest replica's.
  DataParallelDegrees degrees;
  CollectiveAlgorithms collectives{};
};

// The parts of goodput (docs/model.md §10.2): goodput = 1 - checkpoint - rework - restart - island_out.
struct GoodputParts {
  bool per_island = false;           // failures take one island out (DiLoCo), not the whole job
  double failures_per_hour = 0;      // whole job: GPUs x rate, plus spot preemptions
  double mtbf_s = 0;                 // mean time between failures anywhere in the job
  double checkpoint_write_s = 0;     // blocking time per checkpoint
  double checkpoint_loss = 0;        // checkpoint_write_s / interval
  double rework_loss = 0;            // synchronous: half an interval of work lost per failure
  double restart_loss = 0;           // synchronous: the job's restart per failure
  double island_out_loss = 0;        // DiLoCo: the failed island's absence and lost inner progress, by its share
  bool spot_preemptions = false;     // a spot island's preemptions count among the failures
  double unfloored = 1;              // 1 - the losses, before the 1 % floor (may be <= 0)
};

struct Estimate {
  bool feasible = false;
  RejectReason reject_reason = RejectReason::none;
  Bottleneck bottleneck = Bottleneck::compute;

  double step_time_s = 0;                // wall time of one optimizer step (averaged over outer steps for DiLoCo)
  double tokens_per_step = 0;
  double tokens_per_s = 0;               // trained tokens per second, whole job
  double effective_tokens_per_s = 0;     // loss-equivalent tokens per second: tokens_per_s x token_efficiency
  double token_efficiency = 1;           // loss-equivalent tokens per trained token: batch x DiLoCo (§9.8)
  double batch_efficiency = 1;           // the batch term (docs/model.md §9.7)
  double diloco_efficiency = 1;          // the DiLoCo convergence term (§9.4; 1 for synchronous jobs)
  double optimizer_batch_tokens = 0;     // B of §9.7: tokens per step of one optimizer (a DiLoCo replica's)
  double noise_batch_tokens = 0;         // B_noise of §9.7: tokens
  double optimal_batch_tokens = 0;       // B_opt of §9.7: tokens
  double trained_tokens = 0;             // tokens trained for the budget: training.tokens / token_efficiency
  double tokens_per_s_per_gpu = 0;
  double tflops_per_gpu = 0;             // model FLOP/s per GPU (MFU numerator)
  double mfu = 0;                        // model FLOP/s over the dense peak of mfu_peak_precision (docs/model.md §1.4)
  double hfu = 0;                        // hardware FLOP/s over the same peak
  Precision mfu_peak_precision = Precision::bf16;  // training.precision: fp8 = the dense fp8 peak, else the 16-bit one
  double compute_utilization = 0;        // share of wall time spent computing (0-1)
  double exposed_comm_fraction = 0;      // exposed communication / step time
  double model_flops_per_step = 0;
  double hardware_flops_per_step = 0;
  double parameters_total = 0;           // model/kernels/parameters.hpp ParameterCounts::total
  double parameters_active = 0;          // per token (= total for dense models)

  double memory_per_gpu_bytes = 0;       // the fullest GPU of the job
  double memory_capacity_bytes = 0;      // its usable HBM
  TimeBreakdown time;
  MemoryBreakdown memory;

  double wan_bytes_per_step = 0;         // crossing the WAN per optimizer step
  double wan_bytes_per_outer_step = 0;   // DiLoCo: per outer synchronisation
  double wan_reduction_vs_sync = 0;      // DiLoCo: synchronous-DP WAN bytes / DiLoCo WAN bytes
  double wan_peak_bytes_per_s = 0;       // per island link: the bandwidth that hides its largest transfer (§12.3)
  double goodput = 1;                    // fraction of wall time doing useful training (0-1)
  double checkpoint_interval_s = 0;      // Young/Daly optimum
  GoodputParts goodput_parts;

  std::int64_t gpus = 0;
  double cost_usd_per_hour = 0;
  double cost_usd_per_million_tokens = 0;            // per million trained tokens
  double cost_usd_per_effective_million_tokens = 0;  // per million loss-equivalent tokens (the budget's unit)
  double wall_clock_s = 0;               // for the token budget, including goodput losses
  double gpu_usd_total = 0;
  double egress_usd_total = 0;
  double total_cost_usd = 0;

  std::uint32_t warnings = 0;            // model::Warning bits (model/spec/estimate_warnings.hpp)

  DataParallelDegrees degrees;           // of one training job (model/parallel/layout.hpp: job_degrees)

  int island_entries = 0;
  std::array<IslandEstimate, kMaxIslands> islands{};
};

}  // namespace shardmeter::model
