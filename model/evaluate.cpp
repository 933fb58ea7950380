#include "model/evaluate.hpp"

#include <algorithm>

#include "model/consistency.hpp"
#include "model/flops.hpp"
#include "model/island_step.hpp"
#include "model/parameters.hpp"
#include "model/units.hpp"

namespace shardmeter::model {

Bottleneck dominant_component(const TimeBreakdown& t) noexcept {
  struct Candidate {
    double seconds;
    Bottleneck what;
  };
  const Candidate candidates[] = {
      {t.compute_s + t.recompute_s, Bottleneck::compute},
      {t.memory_bound_s + t.optimizer_s, Bottleneck::memory_bandwidth},
      {t.tp_comm_s, Bottleneck::tp_comm},
      {t.pp_comm_s, Bottleneck::pp_comm},
      {t.bubble_s, Bottleneck::pipeline_bubble},
      {t.dp_comm_s, Bottleneck::dp_comm},
      {t.wan_s, Bottleneck::wan},
      {t.straggler_s, Bottleneck::straggler},
  };
  const Candidate* best = &candidates[0];
  for (const Candidate& c : candidates)
    if (c.seconds > best->seconds) best = &c;
  return best->what;
}

Estimate evaluate(const Scenario& s) noexcept {
  Estimate e;
  e.island_entries = s.cluster.island_entries;
  e.gpus = s.cluster.total_gpus();
  if (const Violation v = check_consistency(s)) {
    e.reject_reason = v.reason;
    return e;
  }

  const ParameterCounts params = count_parameters(s.model);
  const FlopCounts flops = count_flops(s.model, s.plan.recompute);
  const double global_batch = static_cast<double>(s.training.global_batch);
  const int dp_total = total_data_parallel(s);

  // Every island runs its share; the step ends when the slowest replica is done (equal split).
  double slowest_s = 0;
  double peak_flops = 0;
  double fullest_ratio = -1;  // memory / capacity of the fullest GPU so far
  bool fits = true;
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const IslandSpec& island = s.cluster.islands[static_cast<std::size_t>(i)];
    const double sequences_per_replica = global_batch / dp_total;
    const IslandStep st = island_step(s, island, params, sequences_per_replica);
    IslandEstimate& ie = e.islands[static_cast<std::size_t>(i)];
    ie.time = st.time;
    ie.memory = st.memory;
    ie.step_time_s = st.time.total();
    ie.batch_share = sequences_per_replica * island_data_parallel(s, i) / global_batch;
    ie.memory_per_gpu_bytes = st.memory_bytes;
    ie.memory_capacity_bytes = st.capacity_bytes;
    ie.feasible = st.fits;
    ie.bottleneck = st.fits ? dominant_component(st.time) : Bottleneck::memory_capacity;
    fits = fits && st.fits;
    slowest_s = std::max(slowest_s, ie.step_time_s);
    peak_flops += island.total_gpus() * island.gpu.peak_flops_per_s;
    if (st.memory_bytes / st.capacity_bytes > fullest_ratio) {
      fullest_ratio = st.memory_bytes / st.capacity_bytes;
      e.memory_per_gpu_bytes = st.memory_bytes;
      e.memory_capacity_bytes = st.capacity_bytes;
      e.memory = st.memory;
    }
  }

  // The job's step: the slowest island; the others wait (straggler time).
  e.step_time_s = slowest_s;
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    IslandEstimate& ie = e.islands[static_cast<std::size_t>(i)];
    ie.time.straggler_s = slowest_s - ie.step_time_s;
    if (ie.step_time_s == slowest_s && e.time.total() == 0) e.time = ie.time;  // the slowest island
  }
  e.time.straggler_s = 0;  // the job's own breakdown is its slowest island's
  e.bottleneck = fits ? dominant_component(e.time) : Bottleneck::memory_capacity;

  e.tokens_per_step = global_batch * s.model.seq_len;
  e.model_flops_per_step = global_batch * flops.model_per_sequence;
  e.hardware_flops_per_step = global_batch * flops.hardware_per_sequence;
  e.tokens_per_s = e.tokens_per_step / e.step_time_s;
  e.effective_tokens_per_s = e.tokens_per_s;
  e.tokens_per_s_per_gpu = e.tokens_per_s / static_cast<double>(e.gpus);
  e.tflops_per_gpu = e.model_flops_per_step / e.step_time_s / static_cast<double>(e.gpus) / kTera;
  e.mfu = e.model_flops_per_step / (e.step_time_s * peak_flops);
  e.hfu = e.hardware_flops_per_step / (e.step_time_s * peak_flops);
  const double comm = e.time.tp_comm_s + e.time.pp_comm_s + e.time.dp_comm_s + e.time.wan_s;
  e.exposed_comm_fraction = comm / e.step_time_s;
  e.compute_utilization = 1.0 - (e.time.wan_s + e.time.straggler_s) / e.step_time_s;

  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const IslandSpec& island = s.cluster.islands[static_cast<std::size_t>(i)];
    IslandEstimate& ie = e.islands[static_cast<std::size_t>(i)];
    ie.tokens_per_s = e.tokens_per_s * ie.batch_share / island.count;
    ie.tokens_per_s_per_gpu = ie.tokens_per_s / island.gpus;
    ie.utilization = 1.0 - (ie.time.wan_s + ie.time.straggler_s) / e.step_time_s;
    e.cost_usd_per_hour += island.total_gpus() * island.price_usd_per_gpu_hour;
  }

  e.goodput = 1.0;
  e.wall_clock_s = s.training.tokens / e.tokens_per_s / e.goodput;
  e.gpu_usd_total = e.cost_usd_per_hour * e.wall_clock_s / kSecondsPerHour;
  e.total_cost_usd = e.gpu_usd_total + e.egress_usd_total;
  e.cost_usd_per_million_tokens = e.cost_usd_per_hour / (e.tokens_per_s * kSecondsPerHour) * 1e6 / e.goodput;

  e.feasible = fits;
  e.reject_reason = fits ? RejectReason::none : RejectReason::out_of_memory;
  return e;
}

}  // namespace shardmeter::model
