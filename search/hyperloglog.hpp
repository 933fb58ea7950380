#pragma once
// A fixed-memory estimate of how many distinct candidate indices were added: HyperLogLog (Flajolet, Fusy,
// Gandouet, Meunier 2007, "HyperLogLog: the analysis of a near-optimal cardinality estimation algorithm", with
// its linear-counting correction for small counts; a 64-bit hash needs no large-range correction). 2^14 one-byte
// registers (16 KB, allocated at the first add): relative standard error 1.04 / sqrt(2^14) = 0.8 %. The hash is
// SplitMix64's finaliser of the index XOR a fixed seed (search/index_set.hpp), so an estimate is a function of the
// set of indices added alone: the same for any order of adds or merges (a merge keeps each register's maximum) and
// thus for any thread count. Annealing counts with it once its exact sets would pass their caps (search/anneal.cpp).
#include <cstdint>
#include <vector>

namespace shardmeter::search {

class HyperLogLog {
public:
  static constexpr int kPrecision = 14;                          // index bits: 2^14 registers
  static constexpr std::size_t kRegisters = std::size_t{1} << kPrecision;

  void add(std::uint64_t index);
  // Adds every index `other` was given (register-wise maximum: order-independent).
  void merge(const HyperLogLog& other);
  // The estimated number of distinct indices added, rounded to the nearest integer; 0 when none was.
  std::uint64_t estimate() const;
  bool empty() const noexcept { return registers_.empty(); }

private:
  std::vector<std::uint8_t> registers_;   // empty until the first add
};

}  // namespace shardmeter::search
