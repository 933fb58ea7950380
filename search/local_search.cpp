// Pareto local search (Paquete et al. 2004): after the annealing chains, the rest of the budget goes to the
// neighbours of front points whose neighbourhood has not been looked at yet, round after round, until the
// budget is spent or every front point has been expanded. Level 1 neighbours change one axis to any value;
// once every front point has its level-1 neighbours, level 2 changes two axes at once by up to kPairStep values
// each (parallel degrees are coupled: tp=2,cp=2 -> tp=1,cp=1 may need both at once). The neighbours of a round
// are listed in a fixed order, evaluated in parallel into their slots and merged in list order, so the result
// does not depend on the thread count.
#include "search/local_search.hpp"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "search/cursor.hpp"

namespace shardmeter::search {

namespace {

constexpr int kPairStep = 2;
// Once the counts are estimates, the set of visited candidates is a cache of at most this many (1 MB), emptied
// when full.
constexpr std::size_t kEstimatedCacheEntries = std::size_t{1} << 16;

struct Scratch {
  explicit Scratch(const Space& space) : cursor(space) {}
  Cursor cursor;
  model::Estimate estimate;
};

}  // namespace

bool LocalSearchState::first_visit(std::uint64_t index) {
  if (!estimated && visited.size() >= exact_limit && !visited.contains(index)) switch_to_estimates();
  if (estimated && visited.size() >= kEstimatedCacheEntries) visited = IndexSet(kEstimatedCacheEntries);
  return visited.insert(index);
}

void LocalSearchState::switch_to_estimates() {
  estimated = true;
  visited = IndexSet(kEstimatedCacheEntries);
}

void pareto_local_search(const Space& space, const CandidateCheck& check, const RunControl& control,
                         std::uint64_t budget, LocalSearchState& state) {
  tbb::enumerable_thread_specific<Scratch> scratch([&] { return Scratch(space); });
  std::vector<std::uint64_t> neighbours;
  std::vector<Outcome> outcomes;
  while (budget > 0) {
    if (control.should_stop()) {
      state.complete = false;
      return;
    }
    // Front points not expanded at level 1 yet; if none, those not expanded at level 2; in index order.
    int level = 0;
    std::vector<std::uint64_t> frontier;
    for (int l = 1; l <= 2 && frontier.empty(); ++l) {
      for (const ArchivePoint& p : state.archive.points()) {
        int& reached = state.expanded[p.index];
        if (reached < l) {
          reached = l;
          frontier.push_back(p.index);
        }
      }
      level = l;
    }
    if (frontier.empty()) return;
    std::sort(frontier.begin(), frontier.end());

    neighbours.clear();
    Cursor& cursor = scratch.local().cursor;
    auto add = [&](std::uint64_t n) {
      if (neighbours.size() < budget && state.first_visit(n)) neighbours.push_back(n);
    };
    auto moved = [&](std::uint64_t index, int p, std::uint32_t from, std::uint32_t to) {
      return index - std::uint64_t{from} * space.block_size(p) + std::uint64_t{to} * space.block_size(p);
    };
    for (const std::uint64_t index : frontier) {
      cursor.seek(index);
      for (int p = 0; p < space.axis_count(); ++p) {
        const std::uint32_t dp = cursor.digit(p);
        if (level == 1) {
          for (std::uint32_t d = 0; d < space.radix(p); ++d)
            if (d != dp) add(moved(index, p, dp, d));
          continue;
        }
        for (int q = p + 1; q < space.axis_count(); ++q) {
          const std::uint32_t dq = cursor.digit(q);
          for (int a = -kPairStep; a <= kPairStep; ++a) {
            const std::int64_t x = std::int64_t{dp} + a;
            if (a == 0 || x < 0 || x >= space.radix(p)) continue;
            for (int b = -kPairStep; b <= kPairStep; ++b) {
              const std::int64_t y = std::int64_t{dq} + b;
              if (b == 0 || y < 0 || y >= space.radix(q)) continue;
              add(moved(moved(index, p, dp, static_cast<std::uint32_t>(x)), q, dq, static_cast<std::uint32_t>(y)));
            }
          }
        }
      }
    }
    if (neighbours.empty()) continue;

    outcomes.assign(neighbours.size(), Outcome{});
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, neighbours.size(), 64), [&](const tbb::blocked_range<std::size_t>& r) {
      Scratch& s = scratch.local();
      for (std::size_t i = r.begin(); i < r.end(); ++i) {
        s.cursor.seek(neighbours[i]);
        outcomes[i] = check.check(s.cursor.scenario(), s.estimate);
      }
    });
    for (std::size_t i = 0; i < neighbours.size(); ++i) {
      state.tally.count(outcomes[i]);
      state.distinct.add(neighbours[i], outcomes[i]);
      if (outcomes[i].code == Outcome::kFeasible) {
        state.archive.insert(neighbours[i], outcomes[i].objectives);
        state.feasible.push_back(neighbours[i]);
      }
    }
    budget -= neighbours.size();
    control.progress->add(neighbours.size());
  }
}

}  // namespace shardmeter::search
