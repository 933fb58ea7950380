#pragma once
// Simulated annealing chains followed by a Pareto local search, for spaces too large to enumerate
// (search/anneal.cpp).
#include "search/candidate_check.hpp"
#include "search/engine.hpp"
#include "search/options.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

EngineOutput run_anneal(const Space& space, const CandidateCheck& check, const SearchOptions& options,
                        const RunControl& control);

}  // namespace shardmeter::search
