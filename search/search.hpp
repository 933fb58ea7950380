#pragma once
// The search engine's entry point: a Space, a Goal and options in, a Pareto front and its counts out.
//
//   search::Space space(base, axes);                 // axes: labelled byte patches (make_patch)
//   search::Goal goal{search::default_objectives(),
//                     {search::limit_metric(model::metric("total_cost_usd"), search::Limit::at_most, 5e6)},
//                     {{"h100-sxm", 512}}};
//   search::SearchResult r = search::search(space, goal, options, stop_flag);
//
// Threads: whatever oneTBB arena the caller runs in (tbb::global_control / task_arena); the front does not
// depend on it. Infeasible spaces give an empty front and counts saying why; nothing is thrown for them.
#include <atomic>
#include <string>

#include "search/goal.hpp"
#include "search/options.hpp"
#include "search/result.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

// Throws std::invalid_argument for bad goals or options (an objective or constraint without a metric, > kMaxObjectives objectives,
// chains < 1). `stop` is polled regularly; setting it ends the search with complete = false.
SearchResult search(const Space& space, const Goal& goal, const SearchOptions& options, std::atomic<bool>& stop);
SearchResult search(const Space& space, const Goal& goal, const SearchOptions& options = {});

// Joins `part` into `total`: the results of searches of parts of one space (disjoint index ranges from
// SearchOptions::work, or anneal runs with other seeds), typically from other processes. Counts are summed, the
// completeness is the conjunction, and the front is rebuilt from both fronts' indices (re-checked here; only
// FrontPoint::index of `part` is read), so joining the parts of a space in any order gives the front one search
// of the whole space gives, byte for byte. Time, rate, method and seed stay those of `total`.
void join_part(const Space& space, const Goal& goal, const SearchOptions& options, SearchResult& total,
               const SearchResult& part);

// The engine `auto` would run for this space, goal and options, and why (see SearchOptions::auto_*). Walks a
// space of up to auto_exact_walk_limit candidates with the cheap checks (stopping once enumeration is predicted
// to exceed the time budget); prices a larger one from a sample.
struct MethodChoice {
  Method method = Method::exhaustive;
  std::string reason;
  double decision_s = 0;   // time spent deciding (0 when the method was requested)
  // From auto's sample, when it took one: the share of the drawn candidates reaching the model-state memory bound
  // that the bound rejects; -1 without a sample.
  double memory_screen_share = -1;
};
// Whether the model-state memory bound pays on a space where it rejects `share` of the candidates reaching it: it
// costs about a quarter of an estimate per candidate (docs/performance.md, "Adaptive memory screen"), so below that
// share it costs more than the estimates it saves. A negative share (no sample) keeps it on.
bool memory_screen_pays(double share) noexcept;
MethodChoice choose_method(const Space& space, const Goal& goal, const SearchOptions& options);
MethodChoice choose_method(const Space& space, const Goal& goal, const SearchOptions& options, std::atomic<bool>& stop);

}  // namespace shardmeter::search
