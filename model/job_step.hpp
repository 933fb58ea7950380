#pragma once
// One step of the whole job: how its islands combine, synchronously (model/sync_islands.hpp) or DiLoCo-style with
// periodic outer synchronisation (model/diloco_job.hpp).
#include <array>
#include <cstdint>

#include "model/cluster_spec.hpp"
#include "model/island_step.hpp"

namespace shardmeter::model {

struct JobStep {
  std::array<IslandStep, kMaxIslands> islands{};
  std::array<double, kMaxIslands> sequences_per_island{};  // per island of each entry, per (inner) step
  std::array<double, kMaxIslands> wait_s{};                // per (inner) step, waiting for slower islands
  std::array<double, kMaxIslands> wan_s{};                 // per (inner) step, exposed WAN time
  std::array<double, kMaxIslands> island_tokens_per_s{};   // per island of each entry
  double step_time_s = 0;          // wall time per optimizer (inner) step, sync amortised
  double tokens_per_s = 0;         // trained tokens per second, whole job
  double wan_bytes_per_step = 0;
  double wan_bytes_per_outer_step = 0;
  double wan_reduction_vs_sync = 0;
  double wan_peak_bytes_per_s = 0; // per island: the largest transfer over the window it may hide behind
  double outer_period_s = 0;       // DiLoCo: H inner steps plus the exposed sync (0 for synchronous jobs)
  double token_efficiency = 1;     // loss-equivalent tokens per trained token (DiLoCo, docs/model.md §9.4)
  std::uint32_t warnings = 0;      // model::Warning bits
};

}  // namespace shardmeter::model
