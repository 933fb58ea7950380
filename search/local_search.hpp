#pragma once
// Pareto local search around a front (search/local_search.cpp): the second phase of annealing.
#include <cstdint>
#include <vector>

#include "search/candidate_check.hpp"
#include "search/distinct_tally.hpp"
#include "search/engine.hpp"
#include "search/index_set.hpp"
#include "search/pareto_archive.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

// What the Pareto local search continues from (the annealing chains' merged results) and adds to.
struct LocalSearchState {
  ParetoArchive archive;
  Tally tally;                                  // exact counts, while `estimated` is false
  // Every candidate already counted, while `estimated` is false; then only the latest ones (a bounded cache,
  // emptied when full: a neighbour met again after that is checked again).
  IndexSet visited;
  IndexMap<int> expanded;                       // point -> neighbourhood level listed (1 or 2)
  std::vector<std::uint64_t> feasible;          // feasible candidates it found, in order (for the sink)
  bool complete = true;
  DistinctTally distinct;                       // every candidate checked, always (search/distinct_tally.hpp)
  std::uint64_t exact_limit = 0;                // `visited` entries beyond which the counts become estimates
  bool estimated = false;                       // the counts are distinct.tally(), not tally

  // Notes `index` as visited; true unless it was already (in the cache, once estimated).
  bool first_visit(std::uint64_t index);
  // Stops counting exactly: drops the set of every candidate counted for a small cache.
  void switch_to_estimates();
  // Candidates counted so far (estimated once `estimated`).
  std::uint64_t counted() const { return estimated ? distinct.tally().visited : tally.visited; }
};
// Spends up to `budget` visits on one-axis neighbours of unexpanded archive points.
void pareto_local_search(const Space& space, const CandidateCheck& check, const RunControl& control,
                         std::uint64_t budget, LocalSearchState& state);

}  // namespace shardmeter::search
