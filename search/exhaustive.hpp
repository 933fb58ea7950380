#pragma once
// Exhaustive enumeration of a space (search/exhaustive.cpp), and the cheap walk `auto` prices it with.
#include <cstdint>

#include "search/candidate_check.hpp"
#include "search/engine.hpp"
#include "search/options.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

EngineOutput run_exhaustive(const Space& space, const CandidateCheck& check, const SearchOptions& options,
                            const RunControl& control);

// What enumerating a space costs: candidates looked at by the cheap checks, and those the model would estimate.
struct Workload {
  std::uint64_t examined = 0;      // not skipped by pruning
  std::uint64_t estimates = 0;     // pass the cheap checks
  bool exceeded = false;           // the walk stopped because the work passed `limit`
};
// Walks the space with the cheap checks and pruning only. Work is priced as examined + estimates *
// estimate_cost (in cheap-check units); the walk stops as soon as the total passes `limit`. Deterministic:
// `exceeded` is set exactly when the space's total work is larger than `limit`.
Workload measure_workload(const Space& space, const CandidateCheck& check, const RunControl& control,
                          double estimate_cost, double limit);

// What enumerating the space would cost, predicted from `n` candidates drawn with a fixed seed (see
// SearchOptions::auto_sample): a candidate that needs an estimate stands for itself; one a cheap check rejects
// stands for 1/(its pruned block's size) of an examined candidate, the share of the block a sequential walk
// examines (only the block's first member). Sums scaled by size/n are unbiased estimates of Workload's counts.
// Also counted, unscaled: the drawn candidates that reach the model-state memory bound (pass the consistency rules
// and quotas) and those it rejects, for the search's decision whether the bound pays (search.cpp).
struct SampledWorkload {
  double examined = 0;
  double estimates = 0;
  std::uint64_t reached_memory_screen = 0;
  std::uint64_t memory_screened_out = 0;
};
SampledWorkload sample_workload(const Space& space, const CandidateCheck& check, std::uint64_t n);

}  // namespace shardmeter::search
