#include "model/job/diloco_job.hpp"

#include <algorithm>
#include <cmath>

#include "model/parallel/consistency.hpp"
#include "model/job/diloco.hpp"
#include "model/comm/wan.hpp"

namespace shardmeter::model {

// Every island trains its own replica on an equal share of the global batch for H inner steps, then the islands
// all-reduce pseudo-gradients over the WAN [docs/model.md §9.1: T_outer = H*t_inner + T_sync,exposed]. Faster islands
// wait for the slowest, or run more inner steps in the same time (plan.diloco.fast_islands).
JobStep diloco_step(const Scenario& s, const ParameterCounts& params) noexcept {
  JobStep j;
  const DilocoSpec& d = s.plan.diloco;
  const WanRing ring = wan_ring(s.cluster);
  j.egress_usd_per_byte = ring.egress_usd_per_byte;
  j.data_parallel = island_data_parallel(s, 0);
  const int islands = ring.islands;
  const int entries = s.cluster.island_entries;
  const double per_island = static_cast<double>(s.training.global_batch) / islands;

  double slowest = 0;
  for (int e = 0; e < entries; ++e) {
    const auto i = static_cast<std::size_t>(e);
    j.islands.emplace_with(
        i, [&] { return island_step(s, s.cluster.islands[i], params, per_island / island_data_parallel(s, e)); });
    j.sequences_per_island[i] = per_island;
    slowest = std::max(slowest, j.islands[i].time.total());
  }

  const OuterSync sync = outer_sync(params.total, d, ring, slowest);
  const double period = d.inner_steps * slowest + sync.exposed_s;
  double tokens_per_period = 0;
  for (int e = 0; e < entries; ++e) {
    const auto i = static_cast<std::size_t>(e);
    const double own = j.islands[i].time.total();
    double steps = d.inner_steps;
    if (d.fast_islands == DilocoFastIslands::more_steps) steps = std::floor(d.inner_steps * slowest / own + 1e-9);
    tokens_per_period += s.cluster.islands[i].count * steps * per_island * s.model.seq_len;
    j.island_tokens_per_s[i] = steps * per_island * s.model.seq_len / period;
    // Per inner step (of the slowest island's length): waiting and the amortised exposed sync.
    j.wait_s[i] = (d.inner_steps * slowest - steps * own) / d.inner_steps;
    j.wan_s[i] = sync.exposed_s / d.inner_steps;
  }
  j.step_time_s = period / d.inner_steps;
  j.tokens_per_s = tokens_per_period / period;
  j.wan_bytes_per_outer_step = sync.wan_bytes;
  j.wan_bytes_per_step = sync.wan_bytes / d.inner_steps;
  j.wan_reduction_vs_sync = diloco_reduction(d, s.training.grad_reduce_bytes);
  j.outer_period_s = period;
  // Peak: one fragment's share of the ring per island, over the window it may hide behind: tau inner steps and
  // the backward of the step it is released in [docs/model.md §12.3].
  const double fragment_bytes_per_island = sync.wan_bytes / std::max(1, islands) / std::max(1, d.fragments);
  const double window_s = (d.overlap_steps + kBackwardShareOfStep) * slowest;
  j.wan_peak_bytes_per_s = islands > 1 ? fragment_bytes_per_island / window_s : 0.0;
  return j;
}

}  // namespace shardmeter::model
