#pragma once
// What a search returns: the Pareto front (each point decoded and re-estimated) and the counts that explain it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"
#include "search/candidate_check.hpp"
#include "search/goal.hpp"
#include "search/options.hpp"

namespace shardmeter::search {

// A point of the front with its objective values. The result files write results::PlanPoint instead (results/
// cannot see search/); src/planning/search_job.cpp converts one into the other.
struct FrontPoint {
  std::uint64_t index = 0;
  std::vector<std::string> labels;   // one per axis, in axis order
  ObjectiveVector objectives{};      // as the user reads them (not negated), objective order
  model::Estimate estimate;
  model::Scenario scenario;
};

// Invariants: visited == feasible + rejected(); visited == estimated + memory_bound + bound_pruned + rejections
// decided by the consistency rules and quotas (pruned ones included); a complete exhaustive search has
// visited == space_size.
struct SearchCounts {
  std::uint64_t space_size = 0;
  std::uint64_t visited = 0;      // candidates considered
  std::uint64_t estimated = 0;    // model::evaluate calls
  std::uint64_t memory_bound = 0; // out_of_memory without an estimate: model states alone exceed the HBM
  // Rejected without an estimate by pruning by bounds (search/README.md): under the constraint the block's bound
  // cannot meet, or bound_pruned when dominated. Included in rejected.
  std::uint64_t bound_pruned = 0;
  std::uint64_t feasible = 0;     // fit in memory and satisfy every constraint
  std::uint64_t pruned = 0;       // rejected as part of a block, without being looked at (inside rejected)
  // Annealing past SearchOptions::anneal_exact_count_limit: every count above is a HyperLogLog estimate of distinct
  // candidates (0.8 % standard error; visited == feasible + rejected() still holds, the others may miss by as much).
  bool estimated_counts = false;
  std::vector<std::string> reason_names;        // model reasons, gpu_quota:<gpu>, constraint names, non_finite_objective
  std::vector<std::uint64_t> rejected_by_reason;

  std::uint64_t rejected() const noexcept;
  // Adds another part's counts (space_size and reason_names stay).
  void add(const SearchCounts& other);
  // Non-zero reasons, in code order.
  std::vector<std::pair<std::string, std::uint64_t>> rejections() const;
};

struct SearchResult {
  std::vector<FrontPoint> front;        // sorted by the first objective (ascending), then index
  std::vector<model::Objective> objectives;
  SearchCounts counts;
  Method method = Method::exhaustive;   // the engine that ran (never automatic)
  std::string method_reason;            // why auto chose it
  double method_decision_s = 0;         // time auto spent choosing (0 when the method was requested)
  double elapsed_s = 0;
  double candidates_per_s = 0;          // visited / elapsed_s
  int threads = 1;                      // per process
  int ranks = 1;                        // processes whose parts were joined (join_part callers set it)
  std::uint64_t seed = 0;
  bool complete = true;                 // false when stopped by the stop flag or the time limit
};

}  // namespace shardmeter::search
