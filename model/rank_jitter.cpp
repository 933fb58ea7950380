#include "model/rank_jitter.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace shardmeter::model {

namespace {

// A cache of max_of_standard_normals_formula(k * kExpectedMaxTableStep), k = 1 .. kExpectedMaxTableRanks / step (GPU
// counts, and the pipeline's groups of them, are whole nodes, nearly always multiples of 8): slot k holds a mean of
// 0 until some estimate needs that count, then the formula's mean and spread. Zero-initialised at compile time
// (128 KB of .bss, no initialisation guard). The spread is stored before the mean is released, and the mean is
// acquired before the spread is read, so a reader that sees a mean sees its spread; concurrent estimates may compute
// a slot twice and store the same bits. A read value is therefore always the computed one, and the function stays
// pure for its callers.
static_assert(std::atomic<double>::is_always_lock_free);
constexpr std::size_t kSlots = kExpectedMaxTableRanks / kExpectedMaxTableStep + 1;
std::atomic<double> cached_mean[kSlots];
std::atomic<double> cached_sd[kSlots];

}  // namespace

MaxOfNormals max_of_standard_normals(double n) noexcept {
  if (n >= kExpectedMaxTableStep && n <= kExpectedMaxTableRanks) {
    const auto ranks = static_cast<std::int64_t>(n);
    if (static_cast<double>(ranks) == n && ranks % kExpectedMaxTableStep == 0) {
      const auto k = static_cast<std::size_t>(ranks / kExpectedMaxTableStep);
      const double mean = cached_mean[k].load(std::memory_order_acquire);
      if (mean != 0.0) return {mean, cached_sd[k].load(std::memory_order_relaxed)};
      // The formula's mean is > 1.5 from 8 ranks on: 0 means "not computed yet".
      const MaxOfNormals z = max_of_standard_normals_formula(n);
      cached_sd[k].store(z.sd, std::memory_order_relaxed);
      cached_mean[k].store(z.mean, std::memory_order_release);
      return z;
    }
  }
  return max_of_standard_normals_formula(n);
}

}  // namespace shardmeter::model
