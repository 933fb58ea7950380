#include "model/job/goodput.hpp"

#include <algorithm>
#include <cmath>

#include "model/spec/units.hpp"

namespace shardmeter::model {

namespace {

// Blocking seconds per checkpoint [docs/model.md §10.2]: the fixed checkpoint_write_s, or the state of the fullest
// node over the storage bandwidth per node; asynchronous: only the copy to host memory blocks.
struct CheckpointTime {
  double blocking_s = 0;
  double write_s = 0;   // until the checkpoint is on storage (a lower bound on the interval)
};

CheckpointTime checkpoint_time(const ClusterSpec& c, const GoodputSpec& spec, double bytes_per_gpu) {
  if (spec.storage_bytes_per_s_per_node <= 0) return {spec.checkpoint_write_s, spec.checkpoint_write_s};
  int gpus_per_node = 1;
  for (int i = 0; i < c.island_entries; ++i)
    gpus_per_node = std::max(gpus_per_node, c.islands[static_cast<std::size_t>(i)].gpus_per_node);
  const double write_s = bytes_per_gpu * gpus_per_node / spec.storage_bytes_per_s_per_node;
  return {spec.async_checkpoint ? bytes_per_gpu / kHostCopyBytesPerSPerGpu : write_s, write_s};
}

}  // namespace

Goodput goodput(const ClusterSpec& c, const GoodputSpec& spec, const GoodputJob& job) noexcept {
  Goodput g;
  GoodputParts& p = g.parts;
  p.per_island = job.per_island;
  if (!spec.enabled) return g;
  const double rate = spec.failures_per_gpu_hour > 0 ? spec.failures_per_gpu_hour : kDefaultFailuresPerGpuHour;
  std::array<double, kMaxIslands> island_rate{};  // failures per second of one island of each entry
  for (int i = 0; i < c.island_entries; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const IslandSpec& island = c.islands[k];
    const double per_gpu_hour = rate + (island.spot ? island.preemptions_per_gpu_hour : 0.0);
    if (island.spot && island.preemptions_per_gpu_hour > 0) p.spot_preemptions = true;
    island_rate[k] = island.gpus * per_gpu_hour / kSecondsPerHour;
    p.failures_per_hour += island.total_gpus() * per_gpu_hour;
  }
  if (p.failures_per_hour <= 0) return g;
  p.mtbf_s = kSecondsPerHour / p.failures_per_hour;
  const CheckpointTime ckpt = checkpoint_time(c, spec, job.checkpoint_bytes_per_gpu);
  p.checkpoint_write_s = ckpt.blocking_s;
  const double delta = std::max(ckpt.blocking_s, 1e-3);
  // Young's interval against the job-wide failure rate (an elastic job checkpoints as often: conservative), and
  // never shorter than the time a checkpoint takes to reach storage.
  g.checkpoint_interval_s = std::max(std::sqrt(2.0 * delta * p.mtbf_s), ckpt.write_s);
  p.checkpoint_loss = delta / g.checkpoint_interval_s;
  double lost = p.checkpoint_loss;
  if (job.per_island) {
    // A failure takes its island out for the restart and loses on average half an outer period of its inner
    // progress; the other islands train on (Douillard et al. 2023 Fig. 7-8; torchft). Loss: rate x time x share.
    for (int i = 0; i < c.island_entries; ++i) {
      const auto k = static_cast<std::size_t>(i);
      p.island_out_loss += c.islands[k].count * island_rate[k] * (spec.restart_s + job.outer_period_s / 2.0) *
                           job.token_share[k];
    }
    lost += p.island_out_loss;
  } else {
    // Every failure restarts the job: half an interval of work lost on average, plus the restart.
    p.rework_loss = g.checkpoint_interval_s / 2.0 / p.mtbf_s;
    p.restart_loss = spec.restart_s / p.mtbf_s;
    lost += (g.checkpoint_interval_s / 2.0 + spec.restart_s) / p.mtbf_s;
  }
  p.unfloored = 1.0 - lost;
  g.fraction = std::clamp(p.unfloored, 0.01, 1.0);
  g.below_floor = !job.per_island && p.unfloored < kMinSynchronousGoodput;  // §10.4
  return g;
}

}  // namespace shardmeter::model
