// Exhaustive enumeration: the index range [0, size) split across threads (tbb::parallel_reduce), each worker
// walking its ranges with a Cursor, skipping pruned blocks, and keeping its own Pareto archive and tally; the
// archives are merged at the end (order-independent, see pareto_archive.hpp). With a sink (--all), the space
// is cut into fixed chunks run through a tbb::parallel_pipeline whose last stage hands each chunk's feasible
// candidates to the sink serially, in chunk order; with options.rows, the parallel stage packs each feasible
// candidate's row where it was checked, and the chunk carries only those rows; such chunks grow where feasible
// candidates are sparse (fewer chunks, less scheduling) and hold at most RowSink::max_chunk_rows rows (the serial
// stage walks the rest of a fuller chunk itself).
#include "search/exhaustive.hpp"

#include <algorithm>
#include <memory>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include "search/bound_prune.hpp"
#include "search/cursor.hpp"

namespace shardmeter::search {

namespace {

constexpr int kCheckEvery = 512;          // candidates examined between stop/progress checks
constexpr std::uint64_t kGrain = 4096;    // smallest index range a thread takes
// Candidates per chunk handed to the sink (or options.rows). A chunk holds what it found until the sink takes it,
// and at most `tokens` (4 per thread) are in flight: in the worst case (every candidate feasible) that is
// tokens x kSinkChunk x 2,480 bytes (a CandidateRecord) with the sink, tokens x kSinkChunk x row_bytes (1,505 on
// tests/bench/scale_space.yaml) with packed rows. A larger chunk no longer pays with packed rows (docs/performance.md).
constexpr std::uint64_t kSinkChunk = 1024;
// With packed rows a chunk spans about kTargetChunkRows feasible candidates at the density seen so far, between
// kSinkChunk and kMaxRowChunk candidates: on tests/bench/scale_space_1g.yaml (one feasible candidate per 1,100)
// that is 65,536 candidates, 64 times fewer chunks, each of which costs a cursor seek, a re-screen of the pruned
// block it starts in and the pipeline's scheduling. Memory stays bounded by RowSink::max_chunk_rows per chunk
// whatever the density does next (docs/performance.md).
constexpr std::uint64_t kTargetChunkRows = 64;
constexpr std::uint64_t kMaxRowChunk = 65536;

// The block of candidates sharing candidate i's cheap rejection `o` ends at this index (exclusive).
std::uint64_t block_end(const Space& space, const Outcome& o, std::uint64_t i) {
  if (o.prune_position < 0) return space.size();
  const std::uint64_t block = space.block_size(o.prune_position);
  return (i / block + 1) * block;
}
std::uint64_t block_start(const Space& space, const Outcome& o, std::uint64_t i) {
  if (o.prune_position < 0) return 0;
  return i - i % space.block_size(o.prune_position);
}

struct Worker {
  Worker(const Space& space, const CandidateCheck& check)
      : cursor(space), archive(check.objective_count()), tally(check.code_count()) {}
  Cursor cursor;
  model::Estimate estimate;
  model::ParameterCounts params;   // the examined candidate's, counted by the screen for the estimate
  ParetoArchive archive;
  Tally tally;
  // The bound block last decided: [bound_begin, bound_end) and its rejection code (kFeasible: not pruned).
  BoundPruner::Scratch bound_scratch;
  std::uint64_t bound_begin = 1, bound_end = 0;
  int bound_code = Outcome::kFeasible;
};

// Candidate i at the worker's cursor through every stage, with pruning by bounds between the cheap checks and the
// model: a candidate the cheap checks pass is rejected unestimated when its block is pruned, under the constraint its
// bounds cannot meet or the bound_pruned code.
Outcome check_candidate(const CandidateCheck& check, const BoundPruner& bounds, Worker& w, std::uint64_t i) {
  const Outcome screened = check.screen(w.cursor.scenario(), w.params);
  if (screened.code != Outcome::kFeasible) return screened;
  if (bounds.enabled()) {
    if (!(w.bound_begin <= i && i < w.bound_end)) {
      w.bound_begin = i - i % bounds.block_size();
      w.bound_end = w.bound_begin + bounds.block_size();
      w.bound_code = bounds.block_rejection(w.cursor, w.bound_scratch);
    }
    if (w.bound_code != Outcome::kFeasible) {
      Outcome o = screened;
      o.code = w.bound_code;
      o.bound_pruned = true;
      return o;   // prune_position stays the last position: a block of one, the walk examines the next candidate
    }
  }
  return check.check_screened(w.cursor.scenario(), screened, w.params, w.estimate);
}

// Walks [begin, end): every candidate is counted exactly once, either examined or inside a pruned block.
// Returns false when stopped early. `on_feasible(index, estimate)` sees each feasible candidate; when it returns
// false the walk ends after that candidate, with `*walked_to` (when given) set to the next index, else to end.
template <typename OnFeasible>
bool walk(const Space& space, const CandidateCheck& check, const BoundPruner& bounds, const RunControl& control,
          Worker& w, std::uint64_t begin, std::uint64_t end, OnFeasible&& on_feasible,
          std::uint64_t* walked_to = nullptr) {
  if (walked_to != nullptr) *walked_to = end;
  if (begin >= end) return true;
  w.cursor.seek(begin);
  std::uint64_t i = begin;
  std::uint64_t reported = begin;
  int since_check = 0;
  while (i < end) {
    if (++since_check == kCheckEvery) {
      since_check = 0;
      control.progress->add(i - reported);
      reported = i;
      if (control.should_stop()) return false;
    }
    const Outcome o = check_candidate(check, bounds, w, i);
    if (o.code != Outcome::kFeasible && !o.estimated) {
      // Decided before the model ran: the rest of this candidate's block (within the range) shares it.
      const std::uint64_t stop_at = std::min(block_end(space, o, i), end);
      // `pruned` counts what a sequential walk would skip: every member of the block but its first, so the
      // figure does not depend on how the index range was split between threads.
      w.tally.count(o, stop_at - i - 1, i != block_start(space, o, i));
      i = stop_at;
      if (i < end) w.cursor.skip_block(o.prune_position);
      continue;
    }
    w.tally.count(o);
    if (o.code == Outcome::kFeasible) {
      w.archive.insert(i, o.objectives);
      if (!on_feasible(i, w.estimate)) {
        ++i;
        control.progress->add(i - reported);
        if (walked_to != nullptr) *walked_to = i;
        return true;
      }
    }
    if (++i < end) w.cursor.next();
  }
  control.progress->add(end - reported);
  return true;
}

struct ReduceBody {
  ReduceBody(const Space& s, const CandidateCheck& c, const BoundPruner& b, const RunControl& r)
      : space(s), check(c), bounds(b), control(r), w(s, c) {}
  ReduceBody(ReduceBody& other, tbb::split) : ReduceBody(other.space, other.check, other.bounds, other.control) {}

  void operator()(const tbb::blocked_range<std::uint64_t>& range) {
    if (stopped) return;
    stopped = !walk(space, check, bounds, control, w, range.begin(), range.end(),
                    [](std::uint64_t, const model::Estimate&) { return true; });
  }
  void join(ReduceBody& rhs) {
    w.archive.merge(rhs.w.archive);
    w.tally.add(rhs.w.tally);
    stopped = stopped || rhs.stopped;
  }

  const Space& space;
  const CandidateCheck& check;
  const BoundPruner& bounds;
  const RunControl& control;
  Worker w;
  bool stopped = false;
};

struct Chunk {
  std::uint64_t begin = 0, end = 0;
  std::uint64_t walked_to = 0;            // with packed rows: [begin, walked_to) walked (end unless the rows filled up)
  std::vector<CandidateRecord> records;   // for the sink
  std::vector<std::byte> rows;            // for options.rows: the packed rows, row_bytes each
};

// The chunks in flight, reused: the pipeline holds at most `tokens` at once, and a reused chunk keeps the capacity
// it grew to, so no chunk is allocated (nor its vectors grown) once the pipeline runs at its width.
class ChunkPool {
public:
  Chunk* take(std::uint64_t begin, std::uint64_t end) {
    Chunk* chunk = nullptr;
    {
      const std::lock_guard lock(mutex_);
      if (free_.empty()) {
        chunk = all_.emplace_back(std::make_unique<Chunk>()).get();
      } else {
        chunk = free_.back();
        free_.pop_back();
      }
    }
    chunk->begin = begin;
    chunk->end = end;
    chunk->records.clear();
    chunk->rows.clear();
    return chunk;
  }
  void give_back(Chunk* chunk) {
    const std::lock_guard lock(mutex_);
    free_.push_back(chunk);
  }

private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Chunk>> all_;
  std::vector<Chunk*> free_;
};

// One `search --all`/sink run: a three-stage pipeline over chunks of the index range. The first stage (serial, in
// order) hands out chunks, the middle one (parallel) walks them, the last one (serial, in order) gives their records
// and rows to the sink in index order, so the output is the same for any thread count.
class SinkRun {
public:
  SinkRun(const Space& space, const CandidateCheck& check, const BoundPruner& bounds, const SearchOptions& options,
          const RunControl& control, IndexRange range)
      : space_(space), check_(check), bounds_(bounds), options_(options), control_(control), range_(range),
        workers_([&space, &check] { return Worker(space, check); }), next_begin_(range.begin),
        tokens_(static_cast<std::size_t>(4 * tbb::this_task_arena::max_concurrency())),
        packed_(static_cast<bool>(options.rows)), row_bytes_(options.rows.row_bytes),
        max_chunk_rows_(std::max<std::size_t>(1, options.rows.max_chunk_rows)) {}

  EngineOutput run() {
    tbb::parallel_pipeline(
        tokens_,
        tbb::make_filter<void, Chunk*>(tbb::filter_mode::serial_in_order,
                                       [this](tbb::flow_control& fc) { return next_chunk(fc); }) &
            tbb::make_filter<Chunk*, Chunk*>(tbb::filter_mode::parallel, [this](Chunk* chunk) { return walk_chunk(chunk); }) &
            tbb::make_filter<Chunk*, void>(tbb::filter_mode::serial_in_order, [this](Chunk* chunk) { emit_chunk(chunk); }));
    EngineOutput out{ParetoArchive(check_.objective_count()), Tally(check_.code_count()), !stopped_.load()};
    workers_.combine_each([&](const Worker& w) {
      out.archive.merge(w.archive);
      out.tally.add(w.tally);
    });
    return out;
  }

private:
  // First stage: the next chunk of the range, or nullptr (and the pipeline stops) at the end or when stopped.
  Chunk* next_chunk(tbb::flow_control& fc) {
    if (next_begin_ < range_.end && control_.should_stop()) stopped_ = true;
    if (next_begin_ >= range_.end || stopped_.load()) {
      fc.stop();
      return nullptr;
    }
    const std::uint64_t length = chunk_length();
    Chunk* chunk = pool_.take(next_begin_, range_.end - next_begin_ <= length ? range_.end : next_begin_ + length);
    next_begin_ = chunk->end;
    return chunk;
  }

  // Middle stage: walks the chunk, packing rows or keeping candidate records.
  Chunk* walk_chunk(Chunk* chunk) {
    Worker& w = workers_.local();
    bool done = false;
    if (packed_) {
      done = walk_packed(w, chunk, chunk->begin, chunk->end);
    } else {
      done = walk(space_, check_, bounds_, control_, w, chunk->begin, chunk->end,
                  [&](std::uint64_t index, const model::Estimate& e) {
                    chunk->records.push_back(CandidateRecord{index, check_.raw_objectives(e), e});
                    return true;
                  });
    }
    if (!done) stopped_ = true;
    return chunk;
  }

  // Last stage: gives the chunk's records and rows to the sink, in index order, and the chunk back to the pool.
  void emit_chunk(Chunk* chunk) {
    struct Return {
      ChunkPool& pool;
      Chunk* chunk;
      ~Return() { pool.give_back(chunk); }
    } give_back{pool_, chunk};
    if (!chunk->records.empty()) options_.sink(chunk->records);
    if (!packed_) return;
    std::uint64_t rows = chunk->rows.size() / row_bytes_;
    if (!chunk->rows.empty()) options_.rows.append(chunk->rows);
    // A chunk whose rows filled up (denser than its length assumed): the rest of its range is walked here, in
    // order, a chunk's worth of rows at a time.
    while (chunk->walked_to < chunk->end && !stopped_.load()) {
      chunk->rows.clear();
      if (!walk_packed(workers_.local(), chunk, chunk->walked_to, chunk->end)) stopped_ = true;
      rows += chunk->rows.size() / row_bytes_;
      if (!chunk->rows.empty()) options_.rows.append(chunk->rows);
    }
    seen_candidates_.fetch_add(chunk->end - chunk->begin, std::memory_order_relaxed);
    seen_rows_.fetch_add(rows, std::memory_order_relaxed);
  }

  // Packs [begin, end) of `chunk` with worker `w` until the chunk holds max_chunk_rows rows; chunk->walked_to says
  // how far it got. False when stopped.
  bool walk_packed(Worker& w, Chunk* chunk, std::uint64_t begin, std::uint64_t end) {
    return walk(space_, check_, bounds_, control_, w, begin, end,
                [&](std::uint64_t, const model::Estimate& e) {
                  // The cursor is still at the feasible candidate: its scenario and digits are the row's.
                  const std::size_t at = chunk->rows.size();
                  chunk->rows.resize(at + row_bytes_);
                  options_.rows.pack(w.cursor, e, chunk->rows.data() + at);
                  return chunk->rows.size() < max_chunk_rows_ * row_bytes_;
                },
                &chunk->walked_to);
  }

  // Candidates per chunk: kSinkChunk, or with packed rows about kTargetChunkRows rows' worth at the density so far
  // (never more than a share of what is left, so that every thread still gets work near the end).
  std::uint64_t chunk_length() const {
    if (!packed_) return kSinkChunk;
    const std::uint64_t candidates = seen_candidates_.load(std::memory_order_relaxed);
    if (candidates < kSinkChunk) return kSinkChunk;
    const std::uint64_t rows = std::max<std::uint64_t>(1, seen_rows_.load(std::memory_order_relaxed));
    const std::uint64_t left = (range_.end - next_begin_) / std::max<std::uint64_t>(1, tokens_);
    const double wanted = static_cast<double>(kTargetChunkRows) * static_cast<double>(candidates) / static_cast<double>(rows);
    const auto length = static_cast<std::uint64_t>(std::min(wanted, static_cast<double>(kMaxRowChunk)));
    return std::clamp<std::uint64_t>(std::min(length, left), kSinkChunk, kMaxRowChunk);
  }

  const Space& space_;
  const CandidateCheck& check_;
  const BoundPruner& bounds_;
  const SearchOptions& options_;
  const RunControl& control_;
  const IndexRange range_;
  tbb::combinable<Worker> workers_;
  std::atomic<bool> stopped_{false};
  std::uint64_t next_begin_;
  const std::size_t tokens_;
  const bool packed_;
  const std::size_t row_bytes_;
  const std::size_t max_chunk_rows_;
  // Candidates and rows of the chunks done (the serial last stage writes them, the first stage reads them).
  std::atomic<std::uint64_t> seen_candidates_{0}, seen_rows_{0};
  ChunkPool pool_;
};

EngineOutput run_with_sink(const Space& space, const CandidateCheck& check, const BoundPruner& bounds,
                           const SearchOptions& options, const RunControl& control, IndexRange range) {
  return SinkRun(space, check, bounds, options, control, range).run();
}

}  // namespace

Workload measure_workload(const Space& space, const CandidateCheck& check, const RunControl& control,
                          double estimate_cost, double limit) {
  std::atomic<double> shared{0};   // work published by all threads so far
  std::atomic<bool> exceeded{false};
  struct Local {
    std::uint64_t examined = 0, estimates = 0;
  };
  tbb::combinable<Local> locals;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, space.size(), kGrain), [&](const tbb::blocked_range<std::uint64_t>& r) {
    if (exceeded.load(std::memory_order_relaxed)) return;
    Local& local = locals.local();
    Cursor cursor(space);
    cursor.seek(r.begin());
    double unpublished = 0;
    auto publish = [&] {
      const double total = shared.fetch_add(unpublished, std::memory_order_relaxed) + unpublished;
      unpublished = 0;
      if (total > limit) exceeded = true;
    };
    std::uint64_t i = r.begin();
    int since_check = 0;
    while (i < r.end()) {
      if (++since_check == kCheckEvery) {
        since_check = 0;
        publish();
        if (exceeded.load(std::memory_order_relaxed) || control.stop->load(std::memory_order_relaxed)) return;
      }
      // Count what a sequential walk would examine (see walk()), whatever the split between threads.
      const Outcome o = check.screen(cursor.scenario());
      if (o.code == Outcome::kFeasible) {
        ++local.examined;
        ++local.estimates;
        unpublished += 1 + estimate_cost;
        if (++i < r.end()) cursor.next();
        continue;
      }
      if (i == block_start(space, o, i)) {
        ++local.examined;
        unpublished += 1;
      }
      const std::uint64_t stop_at = std::min(block_end(space, o, i), r.end());
      i = stop_at;
      if (i < r.end()) cursor.skip_block(o.prune_position);
    }
    publish();
  });
  Workload w;
  locals.combine_each([&](const Local& l) {
    w.examined += l.examined;
    w.estimates += l.estimates;
  });
  w.exceeded = exceeded.load() || static_cast<double>(w.examined) + static_cast<double>(w.estimates) * estimate_cost > limit;
  return w;
}

namespace {

EngineOutput run_range(const Space& space, const CandidateCheck& check, const BoundPruner& bounds,
                       const SearchOptions& options, const RunControl& control, IndexRange range) {
  if (options.sink || options.rows) return run_with_sink(space, check, bounds, options, control, range);
  ReduceBody body(space, check, bounds, control);
  tbb::parallel_reduce(tbb::blocked_range<std::uint64_t>(range.begin, range.end, kGrain), body,
                       tbb::auto_partitioner());
  return EngineOutput{std::move(body.w.archive), std::move(body.w.tally), !body.stopped};
}

}  // namespace

SampledWorkload sample_workload(const Space& space, const CandidateCheck& check, std::uint64_t n) {
  Cursor cursor(space);
  double examined = 0, estimates = 0;
  std::uint64_t reached = 0, screened_out = 0;
  std::uint64_t state = 0x5eed5eed5eed5eedULL;   // fixed: the choice must not depend on --seed or the machine
  for (std::uint64_t k = 0; k < n; ++k) {
    // SplitMix64 (Steele et al. 2014); the modulo bias is below size / 2^64.
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t x = state;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    cursor.seek(x % space.size());
    const Outcome o = check.screen(cursor.scenario());
    if (o.code == Outcome::kFeasible || o.memory_bound) ++reached;
    if (o.memory_bound) ++screened_out;
    if (o.code == Outcome::kFeasible) {
      examined += 1;
      estimates += 1;
    } else {
      const std::uint64_t block = o.prune_position < 0 ? space.size() : space.block_size(o.prune_position);
      examined += 1.0 / static_cast<double>(block);
    }
  }
  const double scale = static_cast<double>(space.size()) / static_cast<double>(n);
  return {examined * scale, estimates * scale, reached, screened_out};
}

EngineOutput run_exhaustive(const Space& space, const CandidateCheck& check, const SearchOptions& options,
                            const RunControl& control) {
  // With a sink (--all) every feasible candidate must reach it: only infeasibility prunes then, not domination.
  const BoundPruner bounds(space, check, options.bound_prune, options.sink || options.rows ? 0 : 1024);
  if (!options.work) return run_range(space, check, bounds, options, control, IndexRange{0, space.size()});
  // Ranges from the work source, one after another; each one's archive and tally join the total (the archive
  // is order-independent, so the front does not depend on which ranges this process got).
  EngineOutput out{ParetoArchive(check.objective_count()), Tally(check.code_count()), true};
  for (;;) {
    if (control.should_stop()) {
      out.complete = false;
      break;
    }
    IndexRange range = options.work();
    if (range.empty()) break;
    range.end = std::min(range.end, space.size());
    EngineOutput part = run_range(space, check, bounds, options, control, range);
    out.archive.merge(part.archive);
    out.tally.add(part.tally);
    if (!part.complete) {
      out.complete = false;
      break;
    }
  }
  return out;
}

}  // namespace shardmeter::search
