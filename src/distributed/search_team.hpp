#pragma once
// One search shared by the ranks of an MPI launch (docs/scale.md):
//  - exhaustive: the mixed-radix index range is cut into blocks of consecutive indices; each rank takes the next
//    block from a counter on rank 0 (MPI_Fetch_and_op, passive one-sided: dynamic load balancing, since pruned
//    blocks make static splits uneven) and enumerates it with its TBB threads;
//  - anneal: every rank runs the whole annealing with its own seed (rank 0: --seed; rank r: derived from --seed
//    and r), so a run is deterministic for a given number of ranks;
//  - at the end every rank sends its front's indices and its counts to rank 0, which joins them
//    (search::join_part: the Pareto archive is order-independent, so the front is the one a single process finds)
//    and alone writes the files; with --all every rank streams its feasible candidates to rank 0's /all.
// A rank that is stopped (signal, time limit: the job's stop flag) stops the others at their next block; the front
// is then written with complete = false.
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "search/options.hpp"
#include "search/result.hpp"
#include "search/search.hpp"
#include "src/distributed/mpi_world.hpp"
#include "src/planning/search_job.hpp"

namespace shardmeter::distributed {

// The seed annealing uses on `rank`: --seed itself on rank 0 (so one rank is the single-process run), SplitMix64
// of (seed, rank) elsewhere.
std::uint64_t rank_seed(std::uint64_t seed, int rank) noexcept;

class SearchTeam {
public:
  // `write_all`: --all (the other ranks send their feasible candidates to rank 0).
  SearchTeam(MpiWorld& world, bool write_all);
  SearchTeam(const SearchTeam&) = delete;
  SearchTeam& operator=(const SearchTeam&) = delete;

  // The hooks for SearchJobOptions::team; they refer to this object, which must outlive the job.
  cli::JobTeam hooks();

private:
  void before_search(const search::Space& space, search::SearchOptions& options);
  void after_search(const search::Space& space, const search::Goal& goal, const search::SearchOptions& options,
                    search::SearchResult& result);
  search::IndexRange next_range();        // SearchOptions::work
  void send_records(std::span<const search::CandidateRecord> batch);   // ranks > 0, --all
  // Rank 0: hands the --all records that have arrived to the job's writer. With `on_result`, also waits for every
  // other rank's result and passes each to it.
  using ResultFn = std::function<void(const std::vector<std::uint64_t>&)>;
  void receive(const ResultFn* on_result);

  MpiWorld& world_;
  bool write_all_;
  void* window_ = nullptr;                // MPI_Win, kept opaque so this header needs no <mpi.h>
  std::uint64_t space_size_ = 0;
  std::uint64_t block_ = 0;
  std::uint64_t last_range_size_ = 0;     // reported as done when the next range is taken
  bool stopped_by_peer_ = false;
  std::atomic<std::uint64_t> global_done_{0};   // rank 0: candidates of finished blocks, all ranks
  std::atomic<bool> shares_work_{false};        // the engine took ranges (exhaustive): progress is global
  search::SinkFn local_sink_;             // rank 0, --all: the job's writer
  int results_pending_ = 0;               // rank 0: ranks whose result has not arrived
};

}  // namespace shardmeter::distributed
