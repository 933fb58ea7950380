#pragma once
// Annealing's counts of distinct candidates in fixed memory (search/anneal.cpp): one HyperLogLog
// (search/hyperloglog.hpp) per count of a Tally (each rejection code, feasible, estimated, memory_bound,
// bound_pruned), fed with every candidate checked, repeats included. Annealing reports its exact counts while its
// sets of distinct candidates stay under their caps and these estimates beyond (SearchCounts::estimated_counts).
// A candidate's outcome is a pure function of it, so each sketch sees a fixed set of indices and its estimate does
// not depend on the order of adds and merges, nor on the thread count.
#include <cstdint>
#include <vector>

#include "search/candidate_check.hpp"
#include "search/engine.hpp"
#include "search/hyperloglog.hpp"

namespace shardmeter::search {

class DistinctTally {
public:
  DistinctTally() = default;
  explicit DistinctTally(int codes) : rejected_(static_cast<std::size_t>(codes)) {}

  void add(std::uint64_t index, const Outcome& outcome);
  void merge(const DistinctTally& other);
  // The estimated counts; visited is the sum of feasible and every rejection code, so visited == feasible +
  // rejected() holds as for exact counts. pruned is 0 (annealing prunes no blocks).
  Tally tally() const;

private:
  std::vector<HyperLogLog> rejected_;   // by rejection code, registers allocated for the codes met only
  HyperLogLog feasible_, estimated_, memory_bound_, bound_pruned_;
};

}  // namespace shardmeter::search
