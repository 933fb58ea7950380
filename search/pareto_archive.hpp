#pragma once
// An exact Pareto archive over candidate indices. All objectives are minimised (maximised ones arrive negated).
// Ties are broken deterministically: a point with the same objective values as another but a higher index is
// treated as dominated. "Beats" (dominates, or equals with a lower index) is a strict partial order, so the
// archive holds exactly the maximal points of everything inserted, whatever the insertion or merge order:
// per-thread archives merged in any order give the same set.
#include <cstdint>
#include <span>
#include <vector>

#include "search/candidate_check.hpp"

namespace shardmeter::search {

struct ArchivePoint {
  std::uint64_t index = 0;
  ObjectiveVector objectives{};
};

class ParetoArchive {
public:
  explicit ParetoArchive(int objective_count);

  // Adds the point unless an archived point beats it; drops the archived points it beats. True if added.
  bool insert(std::uint64_t index, const ObjectiveVector& objectives);
  void merge(const ParetoArchive& other);

  int objective_count() const noexcept { return k_; }
  std::size_t size() const noexcept { return points_.size(); }
  bool empty() const noexcept { return points_.empty(); }
  // Unordered for more than two objectives; by the first objective for two.
  std::span<const ArchivePoint> points() const noexcept { return points_; }
  // Sorted by the first (minimised) objective, then by index: the deterministic order of a front.
  std::vector<ArchivePoint> sorted() const;

private:
  bool insert_2d(std::uint64_t index, const ObjectiveVector& objectives);
  bool insert_general(std::uint64_t index, const ObjectiveVector& objectives);

  int k_;
  std::vector<ArchivePoint> points_;   // two objectives: first strictly increasing, second strictly decreasing
};

// a beats b: a dominates b, or their objectives are equal and a has the lower index.
bool beats(const ArchivePoint& a, const ArchivePoint& b, int objective_count) noexcept;

}  // namespace shardmeter::search
