#pragma once
// One step of the whole job: how its islands combine, synchronously (model/step/sync_islands.hpp) or DiLoCo-style with
// periodic outer synchronisation (model/job/diloco_job.hpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

#include "model/spec/cluster_spec.hpp"
#include "model/step/island_step.hpp"

namespace shardmeter::model {

// Storage for one T per island entry, constructed when first written: a job uses island_entries of its kMaxIslands
// slots, and value-initialising all of them (3 KB of IslandSteps) was a tenth of an estimate's time. Only the
// slots [0, island_entries) exist; reading another one is an error.
template <class T, std::size_t N>
class IslandSlots {
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>);

public:
  IslandSlots() noexcept {}  // leaves the storage uninitialised on purpose
  // Constructs slot i from make()'s result, with no copy (a prvalue initialises the slot directly).
  template <class Make>
  T& emplace_with(std::size_t i, Make&& make) noexcept {
    return *::new (static_cast<void*>(storage_ + i * sizeof(T))) T(make());
  }
  T& operator[](std::size_t i) noexcept { return *std::launder(reinterpret_cast<T*>(storage_ + i * sizeof(T))); }
  const T& operator[](std::size_t i) const noexcept {
    return *std::launder(reinterpret_cast<const T*>(storage_ + i * sizeof(T)));
  }

private:
  alignas(T) unsigned char storage_[N * sizeof(T)];
};

struct JobStep {
  IslandSlots<IslandStep, kMaxIslands> islands;             // [0, island_entries) constructed by the step
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
  double egress_usd_per_byte = 0;  // the WAN ring's egress price (wan_ring(cluster).egress_usd_per_byte)
  int data_parallel = 0;           // job_degrees' data_parallel: total_data_parallel, or island 0's under DiLoCo
};

}  // namespace shardmeter::model
