#include "model/step/rank_jitter.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace shardmeter::model {

namespace {

// max_of_standard_normals_formula(k * kExpectedMaxTableStep) for k = 0 .. kExpectedMaxTableRanks / step (GPU
// counts, and the pipeline's groups of them, are whole nodes, nearly always multiples of 8), built once on first use
// and never written again: an immutable table of the formula's own values (8,193 entries, 128 KB; building it costs
// about 0.4 ms once per process), so a value read from it is bit for bit the one the formula computes and the
// function stays pure. The initialisation of a function-local static is thread-safe (C++11 [stmt.dcl]/4).
constexpr std::size_t kSlots = kExpectedMaxTableRanks / kExpectedMaxTableStep + 1;
using Table = std::array<MaxOfNormals, kSlots>;

const Table& table() noexcept {
  static const Table t = [] {
    Table built{};
    for (std::size_t k = 0; k < kSlots; ++k)
      built[k] = max_of_standard_normals_formula(static_cast<double>(k * kExpectedMaxTableStep));
    return built;
  }();
  return t;
}

}  // namespace

static_assert((kExpectedMaxTableStep & (kExpectedMaxTableStep - 1)) == 0, "n / step must be exact");

MaxOfNormals max_of_standard_normals(double n) noexcept {
  if (n >= kExpectedMaxTableStep && n <= kExpectedMaxTableRanks) {
    // n / 8 is exact (a power-of-two scaling), so n is a whole multiple of 8 exactly when n / 8 is a whole number:
    // one multiplication and one round trip through an integer instead of two.
    const double slot = n * (1.0 / kExpectedMaxTableStep);
    const auto k = static_cast<std::int32_t>(slot);
    if (static_cast<double>(k) == slot) return table()[static_cast<std::size_t>(k)];
  }
  return max_of_standard_normals_formula(n);
}

}  // namespace shardmeter::model
