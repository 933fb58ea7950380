#include "model/job/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "model/parallel/consistency.hpp"
#include "model/job/diloco_job.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/kernels/flops.hpp"
#include "model/job/goodput.hpp"
#include "model/parallel/layout.hpp"
#include "model/moe/moe_accuracy.hpp"
#include "model/kernels/parameters.hpp"
#include "model/parallel/pipeline_stages.hpp"
#include "model/parallel/recompute.hpp"
#include "model/step/sync_islands.hpp"
#include "model/job/token_efficiency.hpp"
#include "model/spec/units.hpp"
#include "model/comm/wan.hpp"

namespace shardmeter::model {

Bottleneck limiting_resource(const TimeBreakdown& t) noexcept {
  // docs/model.md §5.7. Compute-bound: the compute kernels fill at least half the step (and compute when a
  // comparison is NaN or the step is empty).
  const double step = t.total();
  const double compute = t.compute_s + t.recompute_s;
  if (!(step > 0) || !(compute < kComputeBoundShare * step)) return Bottleneck::compute;
  // Communication as one resource, named by its largest part (the first of equal ones, in this order).
  double comm_part = t.tp_comm_s;
  Bottleneck comm = Bottleneck::tp_comm;
  const auto part = [&](double seconds, Bottleneck b) {
    if (seconds > comm_part) {
      comm_part = seconds;
      comm = b;
    }
  };
  part(t.pp_comm_s, Bottleneck::pp_comm);
  part(t.dp_comm_s, Bottleneck::dp_comm);
  part(t.wan_s, Bottleneck::wan);
  part(t.straggler_s, Bottleneck::straggler);
  part(t.ep_comm_s, Bottleneck::ep_comm);
  const double communication = t.tp_comm_s + t.pp_comm_s + t.dp_comm_s + t.wan_s + t.straggler_s + t.ep_comm_s;
  // Host-memory offload moves bytes over the host link and the host's memory: counted with memory (§7.15, §7.16).
  const double memory = t.memory_bound_s + t.optimizer_s + t.host_offload_s;
  // The largest of the other three resources; memory bandwidth, then communication, then bubble on ties.
  Bottleneck what = Bottleneck::memory_bandwidth;
  double best = memory;
  if (communication > best) best = communication, what = comm;
  if (t.bubble_s > best) what = Bottleneck::pipeline_bubble;
  return what;
}

double mfu_peak_flops_per_s(const GpuSpec& gpu, Precision precision) noexcept {
  return precision == Precision::fp8 && gpu.peak_fp8_flops_per_s > 0 ? gpu.peak_fp8_flops_per_s : gpu.peak_flops_per_s;
}

namespace {

// A rejected estimate is reset by copying the default scalar part (everything before `islands`) and
// value-initialising only the island slots the previous estimate used. That needs `islands` to be the last member.
static_assert(std::is_standard_layout_v<Estimate> && std::is_trivially_copyable_v<Estimate>);
static_assert(offsetof(Estimate, islands) + sizeof(Estimate::islands) == sizeof(Estimate),
              "Estimate::islands must stay the last member (evaluate_into resets the part before it)");
constexpr Estimate kDefaultEstimate{};

void reset_estimate(Estimate& e) noexcept {
  const int used = std::clamp(e.island_entries, 0, kMaxIslands);
  std::memcpy(static_cast<void*>(&e), &kDefaultEstimate, offsetof(Estimate, islands));
  for (int i = 0; i < used; ++i) e.islands[static_cast<std::size_t>(i)] = IslandEstimate{};
}

// The model proper. On entry `e` may hold a previous estimate, but its island slots from s.cluster.island_entries
// on hold default values (evaluate_into resets those). A consistent scenario's estimate writes every field of `e`
// and of its island slots, so nothing else needs resetting first (tests/test_evaluate_reuse.cpp checks this against
// fresh estimates); a rejected one is reset to the defaults besides what it reports.
void evaluate_fresh(const Scenario& s, const ParameterCounts& params, Estimate& e, bool check) noexcept;

// The job's step: synchronous islands or DiLoCo (docs/model.md §8, §10).
JobStep job_step(const Scenario& s, const ParameterCounts& params) noexcept {
  return s.plan.sync == SyncMode::diloco ? diloco_step(s, params) : synchronous_step(s, params);
}

// Whether the bf16 twin of an fp8 plan (the same plan and cluster, precision bf16, no fp8 parameter gather) steps
// faster (issue 31, docs/model.md §2.2). The twin of a consistent fp8 plan is consistent: it is not re-checked. Only
// its step time is compared, and an estimate's step time is its job step's (evaluate_fresh): the twin's job step is
// computed alone, without the rest of an estimate (rates, token efficiency, goodput and cost).
bool fp8_slower_than_bf16(const Scenario& s, const ParameterCounts& params, double fp8_step_s) noexcept {
  Scenario twin = s;
  twin.training.precision = Precision::bf16;
  twin.training.fp8_params = false;
  const double bf16_step_s = job_step(twin, params).step_time_s;
  return bf16_step_s > 0 && fp8_step_s > bf16_step_s * (1 + 1e-9);
}

// What the job takes from its islands' loop.
struct IslandSummary {
  double peak_flops = 0, computing_gpu_s = 0;
  bool fits = true;
  bool network_extrapolated = false;   // docs/model.md §3.6
  std::size_t slowest = 0;             // the island that waits for no one
};

// Per island: its own step, what it waits for, its memory; the job's breakdown and memory from them.
IslandSummary fill_islands(const Scenario& s, const JobStep& job, Estimate& e) noexcept {
  IslandSummary sum;
  double fullest = -1;
  int fullest_island = -1;  // the island whose memory the estimate reports (none when every ratio is NaN)
  double slowest_wait = 1e300;   // the slowest island waits for no one
  // Summed over the islands: start from the default.
  e.cost_usd_per_hour = kDefaultEstimate.cost_usd_per_hour;
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const IslandSpec& island = s.cluster.islands[k];
    const IslandStep& st = job.islands[k];
    IslandEstimate& ie = e.islands[k];
    ie.time = st.time;
    ie.time.wan_s = job.wan_s[k];
    const double wait = std::max(0.0, job.wait_s[k]);   // for slower islands (§8.6)
    ie.time.straggler_s += wait;                           // after the island's own slowest-rank wait (§5.6)
    ie.step_time_s = st.time.total() - st.time.wan_s;
    ie.memory = st.memory;
    ie.memory_per_gpu_bytes = st.memory_bytes;
    ie.memory_capacity_bytes = st.capacity_bytes;
    ie.feasible = st.fits;
    ie.degrees = DataParallelDegrees{st.layout.dp, st.layout.dp_shard, st.layout.dp_replicate, st.microbatches};
    ie.collectives = st.collectives;
    if (st.network_extrapolated) sum.network_extrapolated = true;
    ie.bottleneck = st.fits ? limiting_resource(ie.time) : Bottleneck::memory_capacity;
    ie.utilization = std::clamp(1.0 - (ie.time.wan_s + wait) / job.step_time_s, 0.0, 1.0);
    sum.fits = sum.fits && st.fits;
    sum.peak_flops += island.total_gpus() * mfu_peak_flops_per_s(island.gpu, s.training.precision);
    sum.computing_gpu_s += island.total_gpus() * ie.utilization;
    if (wait < slowest_wait) {
      slowest_wait = wait;
      sum.slowest = k;
    }
    if (st.memory_bytes / st.capacity_bytes > fullest) {
      fullest = st.memory_bytes / st.capacity_bytes;
      fullest_island = i;
    }
    e.cost_usd_per_hour +=
        island.total_gpus() * (island.spot ? island.gpu.spot_price_usd_per_gpu_hour : island.price_usd_per_gpu_hour);
  }
  e.time = e.islands[sum.slowest].time;  // the job's breakdown is its slowest island's (which waits for no one)
  // The fullest island's memory, copied once after the loop (the defaults when no ratio compared, e.g. NaN).
  if (fullest_island >= 0) {
    const IslandStep& st = job.islands[static_cast<std::size_t>(fullest_island)];
    e.memory_per_gpu_bytes = st.memory_bytes;
    e.memory_capacity_bytes = st.capacity_bytes;
    e.memory = st.memory;
  } else {
    e.memory_per_gpu_bytes = kDefaultEstimate.memory_per_gpu_bytes;
    e.memory_capacity_bytes = kDefaultEstimate.memory_capacity_bytes;
    e.memory = kDefaultEstimate.memory;
  }

  return sum;
}

// The job's rates, token efficiency, warnings, FLOP rates, bottleneck and degrees.
void fill_job(const Scenario& s, const ParameterCounts& params, const FlopCounts& flops, const JobStep& job,
              const IslandSummary& sum, Estimate& e) noexcept {
  e.step_time_s = job.step_time_s;
  e.tokens_per_step = static_cast<double>(s.training.global_batch) * s.model.seq_len;
  e.tokens_per_s = job.tokens_per_s;
  // One token efficiency for synchronous and DiLoCo plans: batch x convergence (docs/model.md §9.8).
  const TokenEfficiency te =
      token_efficiency(s, params, s.plan.sync == SyncMode::diloco ? wan_ring(s.cluster).islands : 1);
  e.token_efficiency = te.token_efficiency;
  e.batch_efficiency = te.batch;
  e.diloco_efficiency = te.diloco;
  e.optimizer_batch_tokens = te.optimizer_batch_tokens;
  e.noise_batch_tokens = te.noise_batch_tokens;
  e.optimal_batch_tokens = te.optimal_batch_tokens;
  e.effective_tokens_per_s = job.tokens_per_s * te.token_efficiency;
  e.warnings = te.warnings | moe_accuracy_warnings(s.model, s.plan, s.training.precision);  // MoE: docs/model.md §15.8
  // fp8 slower than its bf16 twin, and why (§2.2): the casts when they cost more than the GEMMs save, else the
  // communication the shorter GEMMs no longer hide.
  if (s.training.precision == Precision::fp8 && fp8_slower_than_bf16(s, params, job.step_time_s)) {
    bool casts = false;
    for (int i = 0; i < s.cluster.island_entries; ++i)
      casts = casts || job.islands[static_cast<std::size_t>(i)].fp8_casts_outweigh_gemms;
    e.warnings |= bit(casts ? Warning::fp8_casts_outweigh_gemm_savings : Warning::fp8_hides_less_communication);
  }
  // A measured WAN link read past the island counts it measured (§8.7); a single island has no ring.
  const bool network_extrapolated =
      sum.network_extrapolated ||
      (any_wan_profile(s.cluster) && s.cluster.total_islands() > 1 && wan_profile_extrapolated(wan_ring(s.cluster)));
  if (network_extrapolated) e.warnings |= bit(Warning::network_profile_extrapolated);
  e.tokens_per_s_per_gpu = e.tokens_per_s / static_cast<double>(e.gpus);
  const double sequences_per_s = e.tokens_per_s / s.model.seq_len;
  e.model_flops_per_step = static_cast<double>(s.training.global_batch) * flops.model_per_sequence;
  e.hardware_flops_per_step = static_cast<double>(s.training.global_batch) * flops.hardware_per_sequence;
  e.tflops_per_gpu = sequences_per_s * flops.model_per_sequence / static_cast<double>(e.gpus) / kTera;
  // Against the dense peak of the compute precision, named in the output (docs/model.md §1.4).
  e.mfu_peak_precision = s.training.precision;  // bf16 and fp16 share one dense 16-bit peak (bf16_tflops)
  e.mfu = sequences_per_s * flops.model_per_sequence / sum.peak_flops;
  e.hfu = sequences_per_s * flops.hardware_per_sequence / sum.peak_flops;
  e.compute_utilization = sum.computing_gpu_s / static_cast<double>(e.gpus);
  e.exposed_comm_fraction =
      (e.time.tp_comm_s + e.time.pp_comm_s + e.time.dp_comm_s + e.time.wan_s + e.time.ep_comm_s) / e.step_time_s;
  // e.time is the slowest island's breakdown; when every island fits, that island's bottleneck is already
  // limiting_resource of it.
  e.bottleneck = sum.fits ? e.islands[sum.slowest].bottleneck : Bottleneck::memory_capacity;
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const auto k = static_cast<std::size_t>(i);
    IslandEstimate& ie = e.islands[k];
    const IslandSpec& island = s.cluster.islands[k];
    ie.batch_share = job.sequences_per_island[k] / static_cast<double>(s.training.global_batch);
    ie.tokens_per_s = job.island_tokens_per_s[k];
    ie.tokens_per_s_per_gpu = ie.tokens_per_s / island.gpus;
  }

  static constexpr IslandLayout kNoIsland{};
  e.degrees = job_degrees(s, s.cluster.island_entries > 0 ? job.islands[0].layout : kNoIsland, job.data_parallel);
}

// WAN traffic, goodput, wall-clock and cost; true when a synchronous job falls under the goodput floor (§10.4).
bool fill_goodput_and_cost(const Scenario& s, const JobStep& job, Estimate& e) noexcept {
  e.wan_bytes_per_step = job.wan_bytes_per_step;
  e.wan_bytes_per_outer_step = job.wan_bytes_per_outer_step;
  e.wan_reduction_vs_sync = job.wan_reduction_vs_sync;
  e.wan_peak_bytes_per_s = job.wan_peak_bytes_per_s;
  GoodputJob gj;
  gj.per_island = s.plan.sync == SyncMode::diloco;
  gj.outer_period_s = job.outer_period_s;
  gj.checkpoint_bytes_per_gpu = e.memory.weights_bytes + e.memory.optimizer_bytes + e.memory.outer_state_bytes;
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const auto k = static_cast<std::size_t>(i);
    gj.token_share[k] = e.tokens_per_s > 0 ? job.island_tokens_per_s[k] / e.tokens_per_s : 0.0;
  }
  const Goodput g = goodput(s.cluster, s.goodput, gj);
  e.goodput = g.fraction;
  e.checkpoint_interval_s = g.checkpoint_interval_s;
  e.goodput_parts = g.parts;
  // training.tokens are loss-equivalent tokens (what a synchronous run needs); DiLoCo trains more [§10.3].
  e.trained_tokens = s.training.tokens / e.token_efficiency;
  e.wall_clock_s = e.trained_tokens / e.tokens_per_s / e.goodput;
  e.gpu_usd_total = e.cost_usd_per_hour * e.wall_clock_s / kSecondsPerHour;
  // Steps of step_time_s it takes to train the budget: tokens / tokens per step for synchronous jobs; for DiLoCo
  // with fast islands running extra inner steps a period trains more than H x global batch, so count periods by
  // time, not by the nominal batch.
  const double steps = e.trained_tokens / (e.tokens_per_s * e.step_time_s);
  e.egress_usd_total = steps * e.wan_bytes_per_step * job.egress_usd_per_byte;
  e.total_cost_usd = e.gpu_usd_total + e.egress_usd_total;
  e.cost_usd_per_million_tokens = e.total_cost_usd / (e.trained_tokens / 1e6);
  e.cost_usd_per_effective_million_tokens = e.total_cost_usd / (s.training.tokens / 1e6);
  if (s.training.tokens <= 0) {
    e.cost_usd_per_million_tokens = e.cost_usd_per_hour / (e.tokens_per_s * kSecondsPerHour) * 1e6 / e.goodput;
    e.cost_usd_per_effective_million_tokens =
        e.cost_usd_per_hour / (e.effective_tokens_per_s * kSecondsPerHour) * 1e6 / e.goodput;
  }
  return g.below_floor;
}

void evaluate_fresh(const Scenario& s, const ParameterCounts& params, Estimate& e, bool check) noexcept {
  const Violation v = check ? check_consistency(s) : Violation{};
  if (v) [[unlikely]] reset_estimate(e);   // before the fields a rejected estimate reports too
  e.island_entries = s.cluster.island_entries;
  e.gpus = s.cluster.total_gpus();
  e.parameters_total = params.total;
  e.parameters_active = params.active;
  if (v) [[unlikely]] {
    e.reject_reason = v.reason;
    return;
  }

  // HFU counts only the blocks that are recomputed: recompute_layers of the fullest rank's blocks (§7.5, §5.4).
  // Without a cap every block counts (recomputed_blocks(plan, n) / n is exactly 1 for n >= 1), so the stage split is
  // needed only under a cap.
  double recomputed_share = 1.0;
  if (s.plan.recompute == Recompute::full && s.plan.recompute_layers > 0) {
    const double fullest_rank = std::max(1, stage_layers(s.model, s.plan).fullest());
    recomputed_share = recomputed_blocks(s.plan, fullest_rank) / fullest_rank;
  }
  const FlopCounts flops = count_flops(s.model, params, s.plan.recompute, recomputed_share);
  const JobStep job = job_step(s, params);

  const IslandSummary sum = fill_islands(s, job, e);
  fill_job(s, params, flops, job, sum, e);
  const bool below_floor = fill_goodput_and_cost(s, job, e);

  // A synchronous job under the goodput floor never finishes in the time printed: infeasible, named (§10.4).
  e.feasible = sum.fits && !below_floor;
  e.reject_reason = !sum.fits ? RejectReason::out_of_memory
                          : below_floor ? RejectReason::goodput_below_floor : RejectReason::none;
}

}  // namespace

Estimate evaluate(const Scenario& s) noexcept {
  Estimate e;
  evaluate_fresh(s, count_parameters(s.model), e, true);
  return e;
}

namespace {
// The island slots the previous estimate used beyond this scenario's entries go back to their defaults; the rest of
// `out` is overwritten by evaluate_fresh (or reset when the scenario is rejected).
void reset_unused_islands(const Scenario& s, Estimate& out) noexcept {
  const int used = std::clamp(out.island_entries, 0, kMaxIslands);
  for (int i = std::clamp(s.cluster.island_entries, 0, kMaxIslands); i < used; ++i)
    out.islands[static_cast<std::size_t>(i)] = IslandEstimate{};
}
}  // namespace

void evaluate_into(const Scenario& s, Estimate& out) noexcept {
  reset_unused_islands(s, out);
  evaluate_fresh(s, count_parameters(s.model), out, true);
}

void evaluate_consistent_into(const Scenario& s, Estimate& out) noexcept {
  evaluate_consistent_into(s, count_parameters(s.model), out);
}

void evaluate_consistent_into(const Scenario& s, const ParameterCounts& params, Estimate& out) noexcept {
  reset_unused_islands(s, out);
  evaluate_fresh(s, params, out, false);
}

}  // namespace shardmeter::model
