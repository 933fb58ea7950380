#include "search/engine.hpp"

namespace shardmeter::search {

void Tally::add(const Tally& other) {
  visited += other.visited;
  estimated += other.estimated;
  memory_bound += other.memory_bound;
  bound_pruned += other.bound_pruned;
  feasible += other.feasible;
  pruned += other.pruned;
  if (rejected.size() < other.rejected.size()) rejected.resize(other.rejected.size(), 0);
  for (std::size_t i = 0; i < other.rejected.size(); ++i) rejected[i] += other.rejected[i];
}

void Tally::count(const Outcome& outcome, std::uint64_t block_extra, bool examined_is_pruned) noexcept {
  visited += 1 + block_extra;
  pruned += block_extra + (examined_is_pruned ? 1 : 0);
  if (outcome.estimated) ++estimated;
  if (outcome.memory_bound) ++memory_bound;
  if (outcome.bound_pruned) ++bound_pruned;
  if (outcome.code == Outcome::kFeasible) {
    ++feasible;
  } else {
    rejected[static_cast<std::size_t>(outcome.code)] += 1 + block_extra;
  }
}

ProgressMeter::ProgressMeter(const ProgressFn& fn, std::uint64_t total, double interval_s)
    : fn_(fn ? &fn : nullptr), total_(total), interval_ns_(static_cast<std::int64_t>(interval_s * 1e9)) {
  next_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count() +
             interval_ns_;
}

void ProgressMeter::add(std::uint64_t done) noexcept {
  const std::uint64_t now_done = done_.fetch_add(done, std::memory_order_relaxed) + done;
  if (fn_ == nullptr) return;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  std::int64_t next = next_ns_.load(std::memory_order_relaxed);
  if (now < next) return;
  if (busy_.exchange(true, std::memory_order_acquire)) return;
  if (next_ns_.compare_exchange_strong(next, now + interval_ns_, std::memory_order_relaxed)) {
    try {
      (*fn_)(now_done, total_);
    } catch (...) {
      // A progress display must not end the search.
    }
  }
  busy_.store(false, std::memory_order_release);
}

}  // namespace shardmeter::search
