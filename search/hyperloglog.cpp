#include "search/hyperloglog.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "search/index_set.hpp"

namespace shardmeter::search {

namespace {

// Fixed: every run of every build hashes an index the same way.
constexpr std::uint64_t kHashSeed = 0x5348'4d45'5445'5231ULL;   // "SHMETER1"

}  // namespace

void HyperLogLog::add(std::uint64_t index) {
  if (registers_.empty()) registers_.assign(kRegisters, 0);
  const std::uint64_t h = detail::mix_index(index ^ kHashSeed);
  const auto slot = static_cast<std::size_t>(h >> (64 - kPrecision));
  const std::uint64_t rest = h << kPrecision;
  // Position of the first 1 bit in the remaining 50 bits (1-based), 51 when they are all 0.
  const auto rank = static_cast<std::uint8_t>(rest == 0 ? 64 - kPrecision + 1 : std::countl_zero(rest) + 1);
  registers_[slot] = std::max(registers_[slot], rank);
}

void HyperLogLog::merge(const HyperLogLog& other) {
  if (other.registers_.empty()) return;
  if (registers_.empty()) {
    registers_ = other.registers_;
    return;
  }
  for (std::size_t i = 0; i < kRegisters; ++i) registers_[i] = std::max(registers_[i], other.registers_[i]);
}

std::uint64_t HyperLogLog::estimate() const {
  if (registers_.empty()) return 0;
  const auto m = static_cast<double>(kRegisters);
  double sum = 0;   // in register order: the same rounding every time
  std::size_t zeros = 0;
  for (const std::uint8_t r : registers_) {
    sum += std::ldexp(1.0, -static_cast<int>(r));
    if (r == 0) ++zeros;
  }
  const double alpha = 0.7213 / (1.0 + 1.079 / m);   // Flajolet et al. 2007, Fig. 3, for m >= 128
  double e = alpha * m * m / sum;
  // Small range: linear counting on the empty registers (Flajolet et al. 2007, Fig. 3).
  if (e <= 2.5 * m && zeros > 0) e = m * std::log(m / static_cast<double>(zeros));
  return static_cast<std::uint64_t>(std::llround(e));
}

}  // namespace shardmeter::search
