#pragma once
// What the engines (exhaustive, anneal) share: per-worker tallies, the stop/deadline/progress control, and
// their output. Internal to search/; callers use search/search.hpp.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "search/candidate_check.hpp"
#include "search/options.hpp"
#include "search/pareto_archive.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

// Counters one worker owns; summed at the end (never shared while running).
struct Tally {
  std::uint64_t visited = 0;
  std::uint64_t estimated = 0;     // model::evaluate calls
  std::uint64_t memory_bound = 0;
  std::uint64_t feasible = 0;
  std::uint64_t pruned = 0;
  std::vector<std::uint64_t> rejected;   // by rejection code

  explicit Tally(int codes = 0) : rejected(static_cast<std::size_t>(codes), 0) {}
  void add(const Tally& other);
  // One candidate's outcome, plus `block_extra` more candidates of its block, rejected without a look.
  // `examined_is_pruned`: the examined candidate itself is not its block's first (counted as pruned too).
  void count(const Outcome& outcome, std::uint64_t block_extra = 0, bool examined_is_pruned = false) noexcept;
};

// Throttled progress reporting from worker threads: at most one call per interval, never two at once.
class ProgressMeter {
public:
  ProgressMeter(const ProgressFn& fn, std::uint64_t total, double interval_s);
  void add(std::uint64_t done) noexcept;
  std::uint64_t done() const noexcept { return done_.load(std::memory_order_relaxed); }

private:
  const ProgressFn* fn_;
  std::uint64_t total_;
  std::int64_t interval_ns_;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<std::int64_t> next_ns_{0};
  std::atomic<bool> busy_{false};
};

using Clock = std::chrono::steady_clock;

struct RunControl {
  std::atomic<bool>* stop = nullptr;
  Clock::time_point deadline = Clock::time_point::max();
  ProgressMeter* progress = nullptr;

  // True when the search must end early (stop flag or deadline).
  bool should_stop() const noexcept {
    return stop->load(std::memory_order_relaxed) || Clock::now() >= deadline;
  }
};

struct EngineOutput {
  ParetoArchive archive;
  Tally tally;
  bool complete = true;
};

// What the Pareto local search continues from (the annealing chains' merged results) and adds to.
struct LocalSearchState {
  ParetoArchive archive;
  Tally tally;
  std::unordered_set<std::uint64_t> visited;    // every candidate already counted
  std::unordered_map<std::uint64_t, int> expanded;   // point -> neighbourhood level listed (1 or 2)
  std::vector<std::uint64_t> feasible;          // feasible candidates it found, in order (for the sink)
  bool complete = true;
};
// Spends up to `budget` visits on one-axis neighbours of unexpanded archive points (search/local_search.cpp).
void pareto_local_search(const Space& space, const CandidateCheck& check, const RunControl& control,
                         std::uint64_t budget, LocalSearchState& state);

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

EngineOutput run_exhaustive(const Space& space, const CandidateCheck& check, const SearchOptions& options,
                            const RunControl& control);
EngineOutput run_anneal(const Space& space, const CandidateCheck& check, const SearchOptions& options,
                        const RunControl& control);

}  // namespace shardmeter::search
