#pragma once
// How a search runs: method, seed, budgets, and the caller's hooks (progress, --all sink).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "model/spec/estimate.hpp"
#include "search/candidate_check.hpp"

namespace shardmeter::search {

enum class Method : std::uint8_t { automatic, exhaustive, anneal };
std::string_view to_string(Method method) noexcept;          // "auto", "exhaustive", "anneal"
std::optional<Method> parse_method(std::string_view text) noexcept;

// One feasible candidate, for the --all sink. Objectives as the user reads them (not negated).
struct CandidateRecord {
  std::uint64_t index = 0;
  ObjectiveVector objectives{};
  model::Estimate estimate;
};

// (candidates done, candidates planned). Never called concurrently, at most once per progress_interval_s.
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;
// Batches of feasible candidates in increasing index order (exhaustive) or in chain order (anneal). Called
// serially, never concurrently, possibly from different worker threads; may run while the search continues.
// Plan columns for a record come from Space::scenario(record.index) / Space::labels(record.index).
using SinkFn = std::function<void(std::span<const CandidateRecord>)>;

class Cursor;
// --all rows built where the candidates are checked (exhaustive search only; annealing, and a distributed run's
// records from other ranks, use the sink): pack(cursor, estimate, row) writes the row of the feasible candidate at
// `cursor` (its index, scenario and digits) with its estimate, row_bytes bytes at `row`, on the worker thread that
// checked it (concurrently); append(rows) takes a chunk's rows serially, in increasing index order, as the sink
// would. The rows are all a chunk holds: no copy of the estimate (about 2.4 KB) is kept or handed on.
// At most max_chunk_rows rows are handed to append at once (so a chunk's memory is bounded whatever the density of
// feasible candidates).
struct RowSink {
  std::size_t row_bytes = 0;
  std::function<void(const Cursor& cursor, const model::Estimate& estimate, std::byte* row)> pack;
  std::function<void(std::span<const std::byte> rows)> append;
  std::size_t max_chunk_rows = 1024;
  explicit operator bool() const noexcept { return row_bytes > 0 && pack && append; }
};

// A half-open range of candidate indices.
struct IndexRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  bool empty() const noexcept { return begin >= end; }
};
// Hands out the index ranges an exhaustive search enumerates, one at a time, until it returns an empty range.
// Called from the thread that called search(), between ranges (never concurrently). A distributed run
// (src/distributed/) uses it to share the space among processes; unset, the search covers the whole space.
using WorkSourceFn = std::function<IndexRange()>;

struct SearchOptions {
  Method method = Method::automatic;
  std::uint64_t seed = 0;
  // Anneal budget: distinct candidates visited (cheap rejections included), summed over chains. Deterministic.
  std::uint64_t visit_budget = 200'000;
  int chains = 16;                    // anneal chains; the result does not depend on the thread count
  // Annealing counts distinct candidates exactly while its merged set holds at most this many and no chain's records
  // pass an eighth of it (32,768 at the default); beyond, its counts are HyperLogLog estimates
  // (search/distinct_tally.hpp, SearchCounts::estimated_counts) and its memory stops growing with the budget. The
  // default (262,144) keeps every shipped scenario and the default budget (200,000) exact. Tests lower it to reach estimates quickly.
  std::uint64_t anneal_exact_count_limit = std::uint64_t{1} << 18;
  double time_limit_s = 0;            // 0 = none; a search stopped by it is complete = false (not deterministic)
  // `auto` runs exhaustive when the space is no larger than the anneal budget, or when enumerating it is
  // predicted to fit auto_time_budget_s (time_limit_s when set). The prediction walks the space with the cheap
  // checks and pruning only (stopping as soon as the budget is exceeded) and prices what it finds with these
  // single-thread rates: a count of work, not a timing, so the choice (and thus the front) is the same on every
  // machine and for every thread count.
  // Spaces larger than auto_exact_walk_limit are priced from a sample instead: auto_sample candidates drawn with
  // a fixed seed (so again the same choice everywhere) and screened; each stands for the share of the walk it
  // represents (1 when it needs an estimate, 1/block size when a sequential walk would skip its pruned block but
  // for the block's first member), which predicts the walk's work without walking (well under a second).
  std::uint64_t auto_exact_walk_limit = std::uint64_t{1} << 22;
  std::uint64_t auto_sample = 1 << 14;
  double auto_time_budget_s = 60;
  // Model estimates per second on one thread inside a search, as measured (docs/performance.md, "auto's estimate
  // rate": 1.9-2.0 M/s per thread with the screens and the archive around them; bench_estimate alone is faster).
  // Until issue 32 this assumed 1 M/s, half the measured rate, and sent 10^8-candidate spaces that exhaustive
  // finishes well inside the budget to annealing.
  double auto_estimates_per_s = 2.0e6;
  double auto_checks_per_s = 2.0e7;      // cheap checks of candidates the model never sees
  bool prune = true;                  // sub-space pruning (changes no count but `pruned`, and never the front)
  // Exhaustive: skip the estimate of candidates whose block's optimistic bounds cannot meet a constraint or are
  // dominated (search/README.md, "Pruning by bounds"). Never changes the front; moves candidates from `estimated`
  // (and the feasible and later-stage rejection counts) to the `bound_pruned` rejection code, the same for any
  // thread count.
  bool bound_prune = true;
  ProgressFn progress;
  double progress_interval_s = 0.25;
  SinkFn sink;                        // --all: every feasible candidate
  RowSink rows;                       // --all, exhaustive: used instead of the sink when set (the sink must be set too)
  WorkSourceFn work;                  // exhaustive: the ranges this process enumerates (unset: all of them)
};

}  // namespace shardmeter::search
