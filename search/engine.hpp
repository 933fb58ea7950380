#pragma once
// What the engines (exhaustive.hpp, anneal.hpp, local_search.hpp) share: per-worker tallies, the
// stop/deadline/progress control, and their output. Internal to search/; callers use search/search.hpp.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "search/candidate_check.hpp"
#include "search/options.hpp"
#include "search/pareto_archive.hpp"

namespace shardmeter::search {

// Counters one worker owns; summed at the end (never shared while running).
struct Tally {
  std::uint64_t visited = 0;
  std::uint64_t estimated = 0;     // model::evaluate calls
  std::uint64_t memory_bound = 0;
  std::uint64_t bound_pruned = 0;  // rejected unestimated by pruning by bounds
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
  bool estimated_counts = false;   // the tally holds estimates (annealing past its exact-count limit)
};

}  // namespace shardmeter::search
