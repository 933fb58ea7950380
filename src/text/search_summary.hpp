#pragma once
// What `shardmeter search` prints under the front: the space, the method and why, candidates visited and
// estimated, rejections by reason (with their share and what each means), feasible plans, the front's size,
// elapsed time and candidates per second. For an empty front, a paragraph explaining the top rejection reasons.
#include <string>

#include "src/planning/search_job.hpp"

namespace shardmeter::cli {

// `interrupted`: the user pressed Ctrl-C (the front is what was found so far).
std::string format_search_summary(const SearchJobResult& job, bool interrupted);

// "No feasible plan: ... Top reasons: ..." (empty string when the front has points).
std::string explain_empty_front(const SearchJobResult& job);

}  // namespace shardmeter::cli
