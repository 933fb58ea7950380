#include "src/distributed/search_team.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <span>
#include <stdexcept>
#include <type_traits>

namespace shardmeter::distributed {

namespace {

constexpr int kRecordsTag = 1;             // a batch of --all records, rank r -> 0
constexpr int kResultTag = 2;              // a rank's front indices and counts, rank r -> 0 (its last message)
constexpr std::uint64_t kMinBlock = 1 << 16;  // candidates: a block costs well above an MPI round trip
constexpr std::uint64_t kBlocksPerRank = 64;  // enough blocks for the load to even out
constexpr std::uint64_t kStopped = std::uint64_t{1} << 62;  // added to the block counter by a rank that stopped

// The window on rank 0: the next block to hand out, and the candidates of finished blocks.
constexpr MPI_Aint kNextBlock = 0;
constexpr MPI_Aint kDone = 1;

static_assert(std::is_trivially_copyable_v<search::CandidateRecord>, "records travel between ranks as bytes");

MPI_Win& win(void*& handle) { return *static_cast<MPI_Win*>(handle); }

std::uint64_t fetch_add(MPI_Win w, MPI_Aint slot, std::uint64_t add) {
  std::uint64_t old = 0;
  MPI_Fetch_and_op(&add, &old, MPI_UINT64_T, 0, slot, MPI_SUM, w);
  MPI_Win_flush(0, w);
  return old;
}

// A result as MPI sends it: completeness, counts, then the front's indices (the rest is rebuilt on rank 0).
std::vector<std::uint64_t> pack(const search::SearchResult& r) {
  const search::SearchCounts& c = r.counts;
  std::vector<std::uint64_t> out{r.complete ? 1u : 0u, c.visited, c.estimated, c.memory_bound, c.feasible, c.pruned,
                                 c.bound_pruned, c.rejected_by_reason.size()};
  out.insert(out.end(), c.rejected_by_reason.begin(), c.rejected_by_reason.end());
  out.push_back(r.front.size());
  for (const search::FrontPoint& p : r.front) out.push_back(p.index);
  return out;
}

search::SearchResult unpack(const std::vector<std::uint64_t>& in) {
  search::SearchResult r;
  std::size_t at = 0;
  const auto next = [&] {
    if (at >= in.size()) throw std::runtime_error("a rank's result message is truncated");
    return in[at++];
  };
  r.complete = next() != 0;
  search::SearchCounts& c = r.counts;
  c.visited = next();
  c.estimated = next();
  c.memory_bound = next();
  c.feasible = next();
  c.pruned = next();
  c.bound_pruned = next();
  c.rejected_by_reason.resize(next());
  for (std::uint64_t& n : c.rejected_by_reason) n = next();
  r.front.resize(next());
  for (search::FrontPoint& p : r.front) p.index = next();
  return r;
}

}  // namespace

std::uint64_t rank_seed(std::uint64_t seed, int rank) noexcept {
  if (rank == 0) return seed;
  // SplitMix64 (Steele et al. 2014) of the rank, mixed into the seed: neighbouring ranks get unrelated streams.
  std::uint64_t x = seed ^ (static_cast<std::uint64_t>(rank) * 0x9e3779b97f4a7c15ULL);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

SearchTeam::SearchTeam(MpiWorld& world, bool write_all) : world_(world), write_all_(write_all) {}

cli::JobTeam SearchTeam::hooks() {
  cli::JobTeam team;
  team.writes_files = world_.rank() == 0;
  team.before_search = [this](const search::Space& space, search::SearchOptions& options) {
    before_search(space, options);
  };
  team.after_search = [this](const search::Space& space, const search::Goal& goal,
                             const search::SearchOptions& options, search::SearchResult& result) {
    after_search(space, goal, options, result);
  };
  return team;
}

void SearchTeam::before_search(const search::Space& space, search::SearchOptions& options) {
  space_size_ = space.size();
  const auto ranks = static_cast<std::uint64_t>(world_.size());
  block_ = std::max(kMinBlock, (space_size_ + ranks * kBlocksPerRank - 1) / (ranks * kBlocksPerRank));
  {
    const std::lock_guard lock(world_.lock());
    window_ = new MPI_Win;
    std::uint64_t* base = nullptr;
    const MPI_Aint bytes = world_.rank() == 0 ? 2 * static_cast<MPI_Aint>(sizeof(std::uint64_t)) : 0;
    MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win(window_));
    if (world_.rank() == 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win(window_));
      base[kNextBlock] = 0;
      base[kDone] = 0;
      MPI_Win_unlock(0, win(window_));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win(window_));
  }
  options.work = [this] { return next_range(); };
  options.seed = rank_seed(options.seed, world_.rank());
  results_pending_ = world_.size() - 1;
  if (world_.rank() == 0) {
    local_sink_ = options.sink;
    if (local_sink_)
      options.sink = [this](std::span<const search::CandidateRecord> batch) {
        local_sink_(batch);
        receive(nullptr);
      };
    // Its own rows are packed on its workers (RowSink); the other ranks' records still come through local_sink_.
    if (options.rows)
      options.rows.append = [this, append = options.rows.append](std::span<const std::byte> rows) {
        append(rows);
        receive(nullptr);
      };
    if (options.progress)
      options.progress = [this, bar = options.progress](std::uint64_t done, std::uint64_t total) {
        if (shares_work_.load(std::memory_order_relaxed))
          bar(std::min(global_done_.load(std::memory_order_relaxed), space_size_), space_size_);
        else
          bar(done, total);
      };
  } else {
    options.progress = {};
    options.sink = {};
    options.rows = {};   // rows are written on rank 0: this rank sends its records (below)
    if (write_all_)
      options.sink = [this](std::span<const search::CandidateRecord> batch) { send_records(batch); };
  }
}

search::IndexRange SearchTeam::next_range() {
  shares_work_ = true;
  // Rank 0 also takes the other ranks' --all rows between its blocks, not only when it finds rows itself: a rank
  // whose rows nobody receives waits in MPI_Send.
  if (world_.rank() == 0 && local_sink_) receive(nullptr);
  const std::lock_guard lock(world_.lock());
  const std::uint64_t done = fetch_add(win(window_), kDone, last_range_size_) + last_range_size_;
  global_done_.store(done, std::memory_order_relaxed);
  last_range_size_ = 0;
  const std::uint64_t block = fetch_add(win(window_), kNextBlock, 1);
  if (block >= kStopped) {
    stopped_by_peer_ = true;
    return {};
  }
  if (block >= (space_size_ + block_ - 1) / block_) return {};
  const search::IndexRange range{block * block_, std::min(space_size_, (block + 1) * block_)};
  last_range_size_ = range.end - range.begin;
  return range;
}

void SearchTeam::send_records(std::span<const search::CandidateRecord> batch) {
  const std::lock_guard lock(world_.lock());
  MPI_Send(batch.data(), static_cast<int>(batch.size_bytes()), MPI_BYTE, 0, kRecordsTag, MPI_COMM_WORLD);
}

void SearchTeam::receive(const ResultFn* on_result) {
  const bool wait_for_results = on_result != nullptr;
  for (;;) {
    MPI_Status status;
    std::vector<unsigned char> bytes;
    {
      const std::lock_guard lock(world_.lock());
      int flag = 0;
      if (wait_for_results) {
        if (results_pending_ == 0) return;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      } else {
        MPI_Iprobe(MPI_ANY_SOURCE, kRecordsTag, MPI_COMM_WORLD, &flag, &status);
        if (flag == 0) return;
      }
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      bytes.resize(static_cast<std::size_t>(count));
      MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (status.MPI_TAG == kRecordsTag) {
      std::vector<search::CandidateRecord> records(bytes.size() / sizeof(search::CandidateRecord));
      std::memcpy(records.data(), bytes.data(), records.size() * sizeof(search::CandidateRecord));
      if (local_sink_) local_sink_(records);
    } else {
      std::vector<std::uint64_t> words(bytes.size() / sizeof(std::uint64_t));
      std::memcpy(words.data(), bytes.data(), words.size() * sizeof(std::uint64_t));
      (*on_result)(words);
      --results_pending_;
    }
  }
}

void SearchTeam::after_search(const search::Space& space, const search::Goal& goal,
                              const search::SearchOptions& options, search::SearchResult& result) {
  const auto start = std::chrono::steady_clock::now();
  {
    const std::lock_guard lock(world_.lock());
    // A stopped rank stops the others: they find no more blocks.
    if (!result.complete) fetch_add(win(window_), kNextBlock, kStopped);
  }
  if (stopped_by_peer_) result.complete = false;
  if (world_.rank() == 0) {
    const ResultFn join = [&](const std::vector<std::uint64_t>& words) {
      search::join_part(space, goal, options, result, unpack(words));
    };
    receive(&join);
    result.ranks = world_.size();
    result.seed = options.seed;
    result.elapsed_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.candidates_per_s = result.elapsed_s > 0 ? static_cast<double>(result.counts.visited) / result.elapsed_s : 0;
  } else {
    const std::vector<std::uint64_t> words = pack(result);
    const std::lock_guard lock(world_.lock());
    MPI_Send(words.data(), static_cast<int>(words.size() * sizeof(std::uint64_t)), MPI_BYTE, 0, kResultTag,
             MPI_COMM_WORLD);
  }
  const std::lock_guard lock(world_.lock());
  MPI_Win_unlock_all(win(window_));
  MPI_Win_free(&win(window_));
  delete &win(window_);
  window_ = nullptr;
}

}  // namespace shardmeter::distributed
