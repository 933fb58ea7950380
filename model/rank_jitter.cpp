#include "model/rank_jitter.hpp"

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

MaxOfNormals max_of_standard_normals(double n) noexcept {
  if (n >= kExpectedMaxTableStep && n <= kExpectedMaxTableRanks) {
    const auto ranks = static_cast<std::int64_t>(n);
    if (static_cast<double>(ranks) == n && ranks % kExpectedMaxTableStep == 0)
      return table()[static_cast<std::size_t>(ranks / kExpectedMaxTableStep)];
  }
  return max_of_standard_normals_formula(n);
}

}  // namespace shardmeter::model
