#include "model/goodput.hpp"

#include <algorithm>
#include <cmath>

#include "model/units.hpp"

namespace shardmeter::model {

Goodput goodput(const ClusterSpec& c, const GoodputSpec& spec) noexcept {
  Goodput g;
  if (!spec.enabled) return g;
  const double rate = spec.failures_per_gpu_hour > 0 ? spec.failures_per_gpu_hour : kDefaultFailuresPerGpuHour;
  for (int i = 0; i < c.island_entries; ++i) {
    const IslandSpec& island = c.islands[static_cast<std::size_t>(i)];
    const double gpus = island.total_gpus();
    g.failures_per_hour += gpus * (rate + (island.spot ? island.preemptions_per_gpu_hour : 0.0));
  }
  if (g.failures_per_hour <= 0) return g;
  g.mtbf_s = kSecondsPerHour / g.failures_per_hour;
  const double delta = std::max(spec.checkpoint_write_s, 1e-3);
  // Young's interval; every failure loses on average half an interval of work plus the restart.
  g.checkpoint_interval_s = std::sqrt(2.0 * delta * g.mtbf_s);
  const double lost = delta / g.checkpoint_interval_s + (g.checkpoint_interval_s / 2.0 + spec.restart_s) / g.mtbf_s;
  g.fraction = std::clamp(1.0 - lost, 0.01, 1.0);
  return g;
}

}  // namespace shardmeter::model
