#include "search/distinct_tally.hpp"

namespace shardmeter::search {

void DistinctTally::add(std::uint64_t index, const Outcome& outcome) {
  if (outcome.code == Outcome::kFeasible) {
    feasible_.add(index);
  } else {
    const auto code = static_cast<std::size_t>(outcome.code);
    if (code >= rejected_.size()) rejected_.resize(code + 1);
    rejected_[code].add(index);
  }
  if (outcome.estimated) estimated_.add(index);
  if (outcome.memory_bound) memory_bound_.add(index);
  if (outcome.bound_pruned) bound_pruned_.add(index);
}

void DistinctTally::merge(const DistinctTally& other) {
  if (rejected_.size() < other.rejected_.size()) rejected_.resize(other.rejected_.size());
  for (std::size_t i = 0; i < other.rejected_.size(); ++i) rejected_[i].merge(other.rejected_[i]);
  feasible_.merge(other.feasible_);
  estimated_.merge(other.estimated_);
  memory_bound_.merge(other.memory_bound_);
  bound_pruned_.merge(other.bound_pruned_);
}

Tally DistinctTally::tally() const {
  Tally t(static_cast<int>(rejected_.size()));
  t.feasible = feasible_.estimate();
  t.visited = t.feasible;
  for (std::size_t i = 0; i < rejected_.size(); ++i) {
    t.rejected[i] = rejected_[i].estimate();
    t.visited += t.rejected[i];
  }
  t.estimated = estimated_.estimate();
  t.memory_bound = memory_bound_.estimate();
  t.bound_pruned = bound_pruned_.estimate();
  return t;
}

}  // namespace shardmeter::search
