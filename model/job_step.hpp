#pragma once
// How the islands of a job combine into one step: synchronous data/pipeline parallelism across islands
// (model/sync_islands.cpp) or DiLoCo-style local training with periodic outer synchronisation (model/diloco_job.cpp).
#include <array>

#include "model/cluster_spec.hpp"
#include "model/island_step.hpp"
#include "model/parameters.hpp"
#include "model/scenario.hpp"

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
  double token_efficiency = 1;
};

JobStep synchronous_step(const Scenario& scenario, const ParameterCounts& params) noexcept;
JobStep diloco_step(const Scenario& scenario, const ParameterCounts& params) noexcept;

}  // namespace shardmeter::model
