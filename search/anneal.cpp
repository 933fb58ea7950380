// Simulated annealing for spaces too large to enumerate, in two phases:
//  1. Several chains run independently (in parallel, one task each). Chain c is seeded from (seed, c), gets a
//     fixed share of kChainShare of the evaluation budget, and minimises its own scalarisation of the
//     objectives, one axis per move; every feasible candidate it visits feeds its Pareto archive.
//  2. The chains' archives and tallies are merged in chain order and the remaining budget goes to a Pareto
//     local search around the merged front (search/local_search.cpp), which fills gaps between the chains.
// Both phases are deterministic for a seed and budget whatever the thread count. A time limit or the stop flag
// ends them early (then the result depends on timing).
#include "search/anneal.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <random>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "model/job/evaluate.hpp"
#include "search/cursor.hpp"
#include "search/distinct_tally.hpp"
#include "search/index_set.hpp"
#include "search/local_search.hpp"

namespace shardmeter::search {

namespace {

constexpr double kStartTemperature = 0.3;    // in units of the scalarised, asinh-normalised energy
constexpr double kEndTemperature = 0.003;
constexpr double kLocalMove = 0.7;           // share of moves that step one value up or down an axis
constexpr double kJumpWhenInfeasible = 0.3;  // share of fresh random points while the chain has no feasible point
constexpr int kStallSteps = 400;             // steps without archive progress before restarting from the archive
constexpr std::uint64_t kStepsPerBudget = 20;  // step cap per budget unit (cache hits are free)
constexpr int kMaxCacheHits = 16;            // consecutive revisits before jumping to a random candidate
constexpr double kChainShare = 0.75;         // of the budget; the rest goes to the Pareto local search
constexpr int kCheckEvery = 64;
constexpr std::size_t kSinkBatch = 1024;
// Preallocation cap (entries) for a chain's checked list and the merged set: larger budgets grow them as needed.
constexpr std::uint64_t kMaxPrealloc = std::uint64_t{1} << 20;
// A chain's cache of visits holds at most this many candidates (2^17 slots of 48 bytes: 6 MB), whatever the budget:
// when full it is emptied and the chain goes on (a candidate visited again after that is checked again, one unit
// of budget). Before issue 33 it grew with the budget (96 MB per running chain at 20 M evaluations), and freeing
// the running chains' caches was most of the time Ctrl-C took. A chain of the default budget (200,000
// evaluations: 9,375 per chain) never fills it, nor does any chain in a space of at most this many candidates, so
// their fronts are unchanged; larger runs are still deterministic (the chain empties it at the same step).
constexpr std::uint64_t kChainCacheEntries = std::uint64_t{1} << 16;
constexpr std::size_t kPrefetchAhead = 16;   // merge: slots fetched ahead of the insert (search/index_set.hpp)
// Exact counts end when the merged set passes SearchOptions::anneal_exact_count_limit or a chain's distinct records
// pass that limit / kChainLimitShare (32,768 at the default: 0.5-1 MB of records per chain). A chain of the
// default budget checks 9,375 candidates and the merge counts at most 200,000; on scenarios/default.yaml the
// counts become estimates somewhere below 1 M evaluations.
constexpr std::uint64_t kChainLimitShare = 8;

// SplitMix64 (Steele et al. 2014): decorrelates the seeds of neighbouring chains.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform integer in [0, n) from the engine's raw output (std::uniform_int_distribution is implementation-
// defined; this keeps runs reproducible across standard libraries).
std::uint64_t uniform(std::mt19937_64& rng, std::uint64_t n) {
  // Rejection sampling: drop the top (2^64 mod n) raw values so every residue is equally likely; n >= 1.
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= threshold) return x % n;
  }
}
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

struct Visit {
  int code = Outcome::kFeasible;
  ObjectiveVector objectives{};
};

// A candidate a chain checked for the first time, with what the tally needs of its outcome: the merge counts each
// candidate once, however many chains checked it. 16 bytes, not the 64 of an index and a whole Outcome: these are
// kept for every evaluation of the chains until the merge (issue 33: 314 MB at 5 M evaluations before).
struct Checked {
  std::uint64_t index = 0;
  std::int32_t code = Outcome::kFeasible;
  std::uint8_t estimated : 1 = 0, memory_bound : 1 = 0, bound_pruned : 1 = 0;

  Checked(std::uint64_t i, const Outcome& o)
      : index(i), code(o.code), estimated(o.estimated), memory_bound(o.memory_bound), bound_pruned(o.bound_pruned) {}
  Outcome outcome() const {
    Outcome o;
    o.code = code;
    o.estimated = estimated;
    o.memory_bound = memory_bound;
    o.bound_pruned = bound_pruned;
    return o;
  }
};
static_assert(sizeof(Checked) == 16);

struct ChainOutput {
  ParetoArchive archive;
  std::vector<std::uint64_t> feasible;   // visit order, for the sink
  std::vector<Checked> checked;          // every candidate the chain checked, in visit order (each once)
  bool complete = true;
  DistinctTally distinct;                // every candidate the chain checked, as sketches (fixed memory)
  bool dropped = false;                  // `checked` was dropped: the counts will be estimates
};

class Chain {
public:
  Chain(const Space& space, const CandidateCheck& check, const SearchOptions& options, const RunControl& control,
        int chain, std::uint64_t budget, std::atomic<bool>& estimating)
      : space_(space), check_(check), options_(options), control_(control), budget_(budget),
        rng_(splitmix64(options.seed ^ splitmix64(static_cast<std::uint64_t>(chain) + 1))), cursor_(space),
        out_{ParetoArchive(check.objective_count()), {}, {}, true, DistinctTally(check.code_count()), false},
        cache_(static_cast<std::size_t>(std::min(budget, kChainCacheEntries))), estimating_(estimating),
        checked_limit_(std::max<std::uint64_t>(options.anneal_exact_count_limit / kChainLimitShare, 1)) {
    compact_at_ = std::min<std::size_t>(compact_at_, 2 * checked_limit_);
    out_.checked.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(budget, compact_at_)));
    for (int p = 0; p < space.axis_count(); ++p)
      if (space.radix(p) > 1) movable_.push_back(p);
    // Scalarisation weights: spread evenly over the chains for two objectives, random (Dirichlet(1)) otherwise.
    const int k = check.objective_count();
    if (k == 1) {
      weights_[0] = 1;
    } else if (k == 2) {
      const double t = (chain + 0.5) / std::max(1, options.chains);
      weights_[0] = t;
      weights_[1] = 1 - t;
    } else {
      double sum = 0;
      for (int o = 0; o < k; ++o) sum += weights_[static_cast<std::size_t>(o)] = -std::log(1.0 - unit(rng_));
      for (int o = 0; o < k; ++o) weights_[static_cast<std::size_t>(o)] /= sum;
    }
  }

  ChainOutput run() {
    if (budget_ == 0) return std::move(out_);
    const std::uint64_t max_steps = kStepsPerBudget * budget_ + 1000;
    cursor_.seek(uniform(rng_, space_.size()));
    Visit current = visit();
    std::uint64_t current_index = cursor_.index();
    std::uint64_t reported = 0;
    int stall = 0;
    for (std::uint64_t step = 0; used_ < budget_ && step < max_steps && cache_.size() < space_.size(); ++step) {
      if (step % kCheckEvery == 0) {
        control_.progress->add(used_ - reported);
        reported = used_;
        if (control_.should_stop()) {
          out_.complete = false;
          break;
        }
        // Another chain or the merge passed its limit: the counts will be estimates, the records are not needed.
        if (!out_.dropped && estimating_.load(std::memory_order_relaxed)) drop_checked();
      }
      const bool current_ok = current.code == Outcome::kFeasible;
      // Propose: a fresh point (searching for feasibility, or restarting from the archive) or a one-axis move.
      std::uint64_t from = current_index;
      int moved = -1;
      std::uint32_t old_digit = 0;
      bool restart = false;
      if (movable_.empty() || hits_ >= kMaxCacheHits || (!current_ok && unit(rng_) < kJumpWhenInfeasible)) {
        cursor_.seek(uniform(rng_, space_.size()));
        restart = hits_ >= kMaxCacheHits;
      } else if (current_ok && stall >= kStallSteps && !out_.archive.empty()) {
        stall = 0;
        const auto points = out_.archive.points();
        cursor_.seek(points[uniform(rng_, points.size())].index);
      } else {
        moved = movable_[uniform(rng_, movable_.size())];
        old_digit = cursor_.digit(moved);
        cursor_.set_digit(moved, propose_digit(moved, old_digit));
      }
      const std::uint64_t archive_inserts = inserts_;
      const Visit proposal = visit();
      stall = inserts_ != archive_inserts ? 0 : stall + 1;

      bool accept;
      if (!current_ok || restart) {
        accept = true;  // random walk until the chain finds its first feasible region
      } else if (proposal.code != Outcome::kFeasible) {
        accept = false;
      } else {
        const double delta = energy(proposal.objectives) - energy(current.objectives);
        const double progress = static_cast<double>(used_) / static_cast<double>(budget_);
        const double temperature = kStartTemperature * std::pow(kEndTemperature / kStartTemperature, progress);
        accept = delta <= 0 || unit(rng_) < std::exp(-delta / temperature);
      }
      if (accept) {
        current = proposal;
        current_index = cursor_.index();
      } else if (moved >= 0) {
        cursor_.set_digit(moved, old_digit);
      } else {
        cursor_.seek(from);
      }
    }
    control_.progress->add(used_ - reported);
    return std::move(out_);
  }

private:
  // A neighbouring value most of the time (axes are usually ordered lists: sizes, degrees), any value otherwise.
  std::uint32_t propose_digit(int position, std::uint32_t digit) {
    const std::uint32_t radix = space_.radix(position);
    if (unit(rng_) < kLocalMove) {
      if (digit == 0) return 1;
      if (digit + 1 == radix) return digit - 1;
      return (rng_() & 1) ? digit + 1 : digit - 1;
    }
    const auto other = static_cast<std::uint32_t>(uniform(rng_, radix - 1));
    return other >= digit ? other + 1 : other;
  }

  // The cursor's candidate, from the chain's cache or checked (one unit of budget).
  Visit visit() {
    const std::uint64_t index = cursor_.index();
    if (const Visit* cached = cache_.find(index)) {
      ++hits_;
      return *cached;
    }
    hits_ = 0;
    const Outcome o = check_.check(cursor_.scenario(), estimate_);
    out_.distinct.add(index, o);
    if (!out_.dropped) {
      out_.checked.emplace_back(index, o);
      if (out_.checked.size() >= compact_at_) compact_checked();
    }
    ++used_;
    Visit v{o.code, o.objectives};
    if (o.code == Outcome::kFeasible) {
      if (out_.archive.insert(index, o.objectives)) ++inserts_;
      if (options_.sink) out_.feasible.push_back(index);
      if (!scaled_) {
        // Normalise each objective by its magnitude at the chain's first feasible point.
        for (int k = 0; k < check_.objective_count(); ++k) {
          const double m = std::fabs(o.objectives[static_cast<std::size_t>(k)]);
          scale_[static_cast<std::size_t>(k)] = m > 0 ? m : 1.0;
        }
        scaled_ = true;
      }
    }
    if (cache_.size() >= kChainCacheEntries) cache_.clear();
    cache_.insert(index, v);
    return v;
  }

  // Drops the repeats from the checked list (candidates checked again after the cache was emptied): sorted by
  // index, one record each. The merge counts each candidate once with its outcome, a pure function of the
  // candidate, so neither the order nor which repeat is kept changes a count; the list then holds at most twice the
  // distinct candidates the chain checked (bounded by the space), not one record per evaluation.
  void compact_checked() {
    std::sort(out_.checked.begin(), out_.checked.end(),
              [](const Checked& a, const Checked& b) { return a.index < b.index; });
    out_.checked.erase(std::unique(out_.checked.begin(), out_.checked.end(),
                                   [](const Checked& a, const Checked& b) { return a.index == b.index; }),
                       out_.checked.end());
    compact_at_ = std::max<std::size_t>(2 * out_.checked.size(), std::min<std::size_t>(kChainCacheEntries, 2 * checked_limit_));
    if (out_.checked.size() > checked_limit_) drop_checked();
  }

  // Past its limit the chain keeps no records (its sketches count for it) and tells the others to do the same:
  // whether a chain passes it depends on its seed and budget only, so the counts are estimates for any thread count.
  void drop_checked() {
    out_.dropped = true;
    std::vector<Checked>().swap(out_.checked);
    estimating_.store(true, std::memory_order_relaxed);
  }

  // Weighted sum of asinh(objective / scale): logarithmic for large ratios, defined for any sign.
  double energy(const ObjectiveVector& objectives) const {
    double e = 0;
    for (int k = 0; k < check_.objective_count(); ++k) {
      const auto i = static_cast<std::size_t>(k);
      e += weights_[i] * std::asinh(objectives[i] / scale_[i]);
    }
    return e;
  }

  const Space& space_;
  const CandidateCheck& check_;
  const SearchOptions& options_;
  const RunControl& control_;
  std::uint64_t budget_;
  std::mt19937_64 rng_;
  Cursor cursor_;
  ChainOutput out_;
  std::vector<int> movable_;
  std::array<double, kMaxObjectives> weights_{};
  std::array<double, kMaxObjectives> scale_{1, 1, 1, 1};
  bool scaled_ = false;
  std::uint64_t used_ = 0;
  std::uint64_t inserts_ = 0;
  int hits_ = 0;   // consecutive cache hits
  std::size_t compact_at_ = 2 * kChainCacheEntries;   // checked-list size that triggers compact_checked()
  model::Estimate estimate_;
  IndexMap<Visit> cache_;
  std::atomic<bool>& estimating_;   // set once the counts will be estimates (any chain or the merge)
  std::size_t checked_limit_;       // distinct records the chain keeps at most
};

// Hands every distinct feasible candidate the search visited to the sink: the chains' in chain order then visit
// order, then the local search's.
void feed_sink(const Space& space, const CandidateCheck& check, const SearchOptions& options,
               const std::vector<ChainOutput>& chains, const std::vector<std::uint64_t>& local) {
  IndexSet seen;
  std::vector<CandidateRecord> batch;
  auto deliver = [&](std::uint64_t index) {
    if (!seen.insert(index)) return;
    CandidateRecord& r = batch.emplace_back();
    r.index = index;
    r.estimate = model::evaluate(space.scenario(index));
    r.objectives = check.raw_objectives(r.estimate);
    if (batch.size() == kSinkBatch) {
      options.sink(batch);
      batch.clear();
    }
  };
  for (const ChainOutput& chain : chains)
    for (const std::uint64_t index : chain.feasible) deliver(index);
  for (const std::uint64_t index : local) deliver(index);
  if (!batch.empty()) options.sink(batch);
}

}  // namespace

EngineOutput run_anneal(const Space& space, const CandidateCheck& check, const SearchOptions& options,
                        const RunControl& control) {
  const int chains = std::max(1, options.chains);
  std::vector<ChainOutput> outputs;
  outputs.reserve(static_cast<std::size_t>(chains));
  for (int c = 0; c < chains; ++c) outputs.push_back(ChainOutput{ParetoArchive(check.objective_count()), {}, {}, true, {}, false});

  // The chains' results are merged in chain order as soon as every earlier chain is merged, each chain's checked
  // list freed once merged (issue 33: they were all held until the last chain ended, 16 bytes per evaluation). A
  // candidate several chains checked is counted once, with the outcome of the first chain in chain order (every
  // chain gets the same outcome: the check is a pure function of the candidate), so the counts are distinct
  // candidates, never more than the space, and do not depend on the thread count. Chains start in chain order
  // (one counter, not a split range), so few finished chains wait for an earlier one.
  // Past the exact-count limits (kChainLimitShare) the merge keeps only the chains' sketches (DistinctTally): memory
  // then stops growing with the budget, and the counts are estimates.
  LocalSearchState state{ParetoArchive(check.objective_count()), Tally(check.code_count()), {}, {}, {}, true,
                         DistinctTally(check.code_count()), std::max<std::uint64_t>(options.anneal_exact_count_limit, 1),
                         false};
  state.visited.reserve(static_cast<std::size_t>(std::min({options.visit_budget, kMaxPrealloc, state.exact_limit})));
  std::atomic<bool> estimating{false};
  std::mutex merge_mutex;
  std::vector<char> finished(static_cast<std::size_t>(chains), 0);
  std::size_t merged = 0;
  const auto merge_ready = [&] {   // under merge_mutex
    while (merged < outputs.size() && finished[merged]) {
      ChainOutput& chain = outputs[merged++];
      state.archive.merge(chain.archive);
      state.complete = state.complete && chain.complete;
      state.distinct.merge(chain.distinct);
      if (chain.dropped && !state.estimated) state.switch_to_estimates();
      // Prefetching the slots kPrefetchAhead entries ahead: the merge is a cache miss per candidate otherwise.
      const std::size_t n = state.estimated ? 0 : chain.checked.size();
      for (std::size_t i = 0; i < n; ++i) {
        if (i + kPrefetchAhead < n) state.visited.prefetch(chain.checked[i + kPrefetchAhead].index);
        const Checked& c = chain.checked[i];
        if (state.visited.insert(c.index)) state.tally.count(c.outcome());
        if (state.visited.size() > state.exact_limit) {
          state.switch_to_estimates();
          break;
        }
      }
      if (state.estimated) estimating.store(true, std::memory_order_relaxed);
      chain.checked = {};
      chain.distinct = DistinctTally();
      chain.archive = ParetoArchive(check.objective_count());
    }
  };

  const auto chain_budget = static_cast<std::uint64_t>(kChainShare * static_cast<double>(options.visit_budget));
  const std::uint64_t share = chain_budget / static_cast<std::uint64_t>(chains);
  const std::uint64_t extra = chain_budget % static_cast<std::uint64_t>(chains);
  std::atomic<int> next{0};
  const int workers = std::max(1, std::min(chains, tbb::this_task_arena::max_concurrency()));
  tbb::parallel_for(0, workers, [&](int) {
    for (int c = next.fetch_add(1); c < chains; c = next.fetch_add(1)) {
      const auto slot = static_cast<std::size_t>(c);
      ChainOutput out{ParetoArchive(check.objective_count()), {}, {}, false, {}, false};
      // A chain not yet started when the search is stopped is not built: building one allocates and clears its
      // cache (up to kChainCacheEntries entries), and 16 of them one after another kept Ctrl-C waiting 6-10 s (issue 33).
      if (!control.should_stop()) {
        const std::uint64_t budget = share + (static_cast<std::uint64_t>(c) < extra ? 1 : 0);
        out = Chain(space, check, options, control, c, budget, estimating).run();
      }
      const std::lock_guard<std::mutex> lock(merge_mutex);
      outputs[slot] = std::move(out);
      finished[slot] = 1;
      merge_ready();
    }
  });

  if (state.complete && state.counted() < options.visit_budget)
    pareto_local_search(space, check, control, options.visit_budget - state.counted(), state);
  if (options.sink) feed_sink(space, check, options, outputs, state.feasible);
  if (state.estimated) {
    state.tally = state.distinct.tally();
    state.tally.rejected.resize(static_cast<std::size_t>(check.code_count()), 0);
  }
  return EngineOutput{std::move(state.archive), std::move(state.tally), state.complete, state.estimated};
}

}  // namespace shardmeter::search
