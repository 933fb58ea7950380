#pragma once
// Pareto local search around a front (search/local_search.cpp): the second phase of annealing.
#include <cstdint>
#include <vector>

#include "search/candidate_check.hpp"
#include "search/engine.hpp"
#include "search/index_set.hpp"
#include "search/pareto_archive.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

// What the Pareto local search continues from (the annealing chains' merged results) and adds to.
struct LocalSearchState {
  ParetoArchive archive;
  Tally tally;
  IndexSet visited;                             // every candidate already counted
  IndexMap<int> expanded;                       // point -> neighbourhood level listed (1 or 2)
  std::vector<std::uint64_t> feasible;          // feasible candidates it found, in order (for the sink)
  bool complete = true;
};
// Spends up to `budget` visits on one-axis neighbours of unexpanded archive points.
void pareto_local_search(const Space& space, const CandidateCheck& check, const RunControl& control,
                         std::uint64_t budget, LocalSearchState& state);

}  // namespace shardmeter::search
