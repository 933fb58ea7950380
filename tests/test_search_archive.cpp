// search/pareto_archive and search/hypervolume on hand-checkable points.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "search/hypervolume.hpp"
#include "search/pareto_archive.hpp"

using namespace shardmeter::search;

namespace {

ObjectiveVector v(double a, double b, double c = 0) { return ObjectiveVector{a, b, c, 0}; }

std::vector<std::uint64_t> indices(const ParetoArchive& a) {
  std::vector<std::uint64_t> out;
  for (const ArchivePoint& p : a.sorted()) out.push_back(p.index);
  return out;
}

}  // namespace

TEST_CASE("two-objective archive keeps the staircase and breaks ties by the lowest index") {
  ParetoArchive a(2);
  CHECK(a.insert(10, v(3, 3)));
  CHECK(a.insert(11, v(1, 5)));
  CHECK(a.insert(12, v(5, 1)));
  CHECK_FALSE(a.insert(13, v(4, 4)));   // dominated by (3,3)
  CHECK_FALSE(a.insert(14, v(3, 3)));   // equal to index 10, higher index
  CHECK(a.insert(9, v(3, 3)));          // equal, lower index: replaces 10
  CHECK_FALSE(a.insert(15, v(3, 4)));   // weakly dominated
  CHECK(indices(a) == std::vector<std::uint64_t>{11, 9, 12});
  CHECK(a.insert(16, v(0, 0)));         // dominates everything
  CHECK(indices(a) == std::vector<std::uint64_t>{16});
}

TEST_CASE("archives give the same set for any insertion or merge order, for 1 to 4 objectives") {
  std::mt19937_64 rng(7);
  for (int k = 1; k <= 4; ++k) {
    std::vector<ArchivePoint> pts;
    for (std::uint64_t i = 0; i < 400; ++i) {
      ObjectiveVector o{};
      for (int j = 0; j < k; ++j) o[static_cast<std::size_t>(j)] = static_cast<double>(rng() % 12);  // many ties
      pts.push_back({i, o});
    }
    // Reference: points no other point beats.
    std::vector<std::uint64_t> expected;
    for (const auto& q : pts) {
      bool beaten = false;
      for (const auto& p : pts) beaten = beaten || beats(p, q, k);
      if (!beaten) expected.push_back(q.index);
    }
    for (int trial = 0; trial < 5; ++trial) {
      std::shuffle(pts.begin(), pts.end(), rng);
      ParetoArchive left(k), right(k);
      for (std::size_t i = 0; i < pts.size(); ++i) (i % 3 ? left : right).insert(pts[i].index, pts[i].objectives);
      right.merge(left);
      std::vector<std::uint64_t> got;
      for (const auto& p : right.points()) got.push_back(p.index);
      std::sort(got.begin(), got.end());
      CHECK(got == expected);
    }
  }
}

TEST_CASE("hypervolume of a staircase, by hand") {
  // Minimised points (1,3), (2,2), (3,1) against reference (4,4), as horizontal slabs:
  // (4-1)*(4-3) + (4-2)*(3-2) + (4-3)*(2-1) = 3 + 2 + 1 = 6. (3,3) is dominated and adds nothing.
  const std::vector<std::array<double, 2>> pts{{1, 3}, {2, 2}, {3, 1}, {3, 3}};
  CHECK(hypervolume_2d(pts, {4, 4}) == Approx(6));
  CHECK(hypervolume_2d(std::vector<std::array<double, 2>>{{5, 1}}, {4, 4}) == 0);
  // Objectives with senses: minimise cost, maximise throughput; reference (cost 10, throughput 0).
  std::vector<FrontPoint> front(2);
  front[0].objectives = ObjectiveVector{2, 5, 0, 0};
  front[1].objectives = ObjectiveVector{6, 8, 0, 0};
  const std::vector<shardmeter::model::Objective> objectives = default_objectives();
  // Slabs: cost 2 -> 10 for throughput 0..5 (8*5 = 40), cost 6 -> 10 for throughput 5..8 (4*3 = 12).
  CHECK(hypervolume_2d(front, objectives, {10, 0}) == Approx(52));
}
