#include "search/pareto_archive.hpp"

#include <algorithm>
#include <stdexcept>

namespace shardmeter::search {

bool beats(const ArchivePoint& a, const ArchivePoint& b, int k) noexcept {
  bool strictly = false;
  for (int o = 0; o < k; ++o) {
    const double x = a.objectives[static_cast<std::size_t>(o)];
    const double y = b.objectives[static_cast<std::size_t>(o)];
    if (x > y) return false;
    if (x < y) strictly = true;
  }
  return strictly || a.index < b.index;
}

ParetoArchive::ParetoArchive(int objective_count) : k_(objective_count) {
  if (k_ < 1 || k_ > kMaxObjectives) throw std::invalid_argument("ParetoArchive: bad objective count");
}

bool ParetoArchive::insert(std::uint64_t index, const ObjectiveVector& objectives) {
  return k_ == 2 ? insert_2d(index, objectives) : insert_general(index, objectives);
}

bool ParetoArchive::insert_general(std::uint64_t index, const ObjectiveVector& objectives) {
  const ArchivePoint q{index, objectives};
  for (const ArchivePoint& p : points_)
    if (beats(p, q, k_)) return false;
  std::erase_if(points_, [&](const ArchivePoint& p) { return beats(q, p, k_); });
  points_.push_back(q);
  return true;
}

// Two objectives: the maximal set is a staircase, first objective strictly increasing and second strictly
// decreasing, so membership is a binary search and the points q beats are one contiguous run.
bool ParetoArchive::insert_2d(std::uint64_t index, const ObjectiveVector& objectives) {
  const ArchivePoint q{index, objectives};
  const double a = objectives[0];
  const double b = objectives[1];
  auto it = std::lower_bound(points_.begin(), points_.end(), a,
                             [](const ArchivePoint& p, double x) { return p.objectives[0] < x; });
  // The best second objective among points with first objective <= a: the last one with first < a, or a
  // point with first == a (there is at most one).
  if (it != points_.end() && it->objectives[0] == a && beats(*it, q, 2)) return false;
  if (it != points_.begin() && std::prev(it)->objectives[1] <= b) return false;  // first < a, second <= b
  // q survives. It beats the run starting at `it` whose second objective is >= b (ties on both objectives
  // there have a higher index, or q would have been beaten above).
  auto last = it;
  while (last != points_.end() && last->objectives[1] >= b) ++last;
  if (last != it) {
    *it = q;
    points_.erase(it + 1, last);
  } else {
    points_.insert(it, q);
  }
  return true;
}

void ParetoArchive::merge(const ParetoArchive& other) {
  if (other.k_ != k_) throw std::invalid_argument("ParetoArchive::merge: different objective counts");
  for (const ArchivePoint& p : other.points_) insert(p.index, p.objectives);
}

std::vector<ArchivePoint> ParetoArchive::sorted() const {
  std::vector<ArchivePoint> out(points_.begin(), points_.end());
  std::sort(out.begin(), out.end(), [](const ArchivePoint& x, const ArchivePoint& y) {
    if (x.objectives[0] != y.objectives[0]) return x.objectives[0] < y.objectives[0];
    return x.index < y.index;
  });
  return out;
}

}  // namespace shardmeter::search
