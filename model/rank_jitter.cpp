#include "model/rank_jitter.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace shardmeter::model {

namespace {

// A cache of expected_max_standard_normal_formula(k * kExpectedMaxTableStep), k = 1 .. kExpectedMaxTableRanks / step
// (GPU counts are whole nodes, nearly always multiples of 8): slot k holds 0 until some estimate needs that count,
// then the formula's value. Zero-initialised at compile time (64 KB of .bss, no initialisation guard); concurrent
// estimates may compute a slot twice and store the same bits, which relaxed atomics make well defined. A read
// value is therefore always the computed one, and the function stays pure for its callers.
static_assert(std::atomic<double>::is_always_lock_free);
constexpr std::size_t kSlots = kExpectedMaxTableRanks / kExpectedMaxTableStep + 1;
std::atomic<double> expected_max_cache[kSlots];

}  // namespace

double expected_max_standard_normal(double n) noexcept {
  if (n >= kExpectedMaxTableStep && n <= kExpectedMaxTableRanks) {
    const auto ranks = static_cast<std::int64_t>(n);
    if (static_cast<double>(ranks) == n && ranks % kExpectedMaxTableStep == 0) {
      std::atomic<double>& slot = expected_max_cache[static_cast<std::size_t>(ranks / kExpectedMaxTableStep)];
      double value = slot.load(std::memory_order_relaxed);
      if (value == 0.0) {   // the formula is > 1.5 from 8 ranks on: 0 means "not computed yet"
        value = expected_max_standard_normal_formula(n);
        slot.store(value, std::memory_order_relaxed);
      }
      return value;
    }
  }
  return expected_max_standard_normal_formula(n);
}

}  // namespace shardmeter::model
