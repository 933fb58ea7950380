#pragma once
// Pruning by bounds (search/README.md, "Pruning by bounds"): the exhaustive engine skips the estimate of every
// candidate of a block whose optimistic bounds (model/job/metric_bounds.hpp) cannot satisfy a constraint or are strictly
// dominated by a feasible candidate of a fixed seed set. Blocks share the candidate's digits 0..position(); the
// bounds read only model, cluster and token-budget bytes, and the few axes after position() that change them are
// enumerated, so the bound holds for every member of the block. The decision is a pure function of the block (the
// seed set is chosen before the search, with a fixed SplitMix64 sequence), so it is the same for any thread count
// or split of the space, and so are the counts.
#include <cstdint>
#include <vector>

#include "model/spec/scenario.hpp"
#include "search/candidate_check.hpp"
#include "search/cursor.hpp"
#include "search/pareto_archive.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

class BoundPruner {
public:
  // Disabled (enabled() false) when `on` is false or no objective or constraint has a usable bound. With objectives
  // that all have bounds, evaluates `seeds` candidates to build the seed front (their evaluations are not counted:
  // the walk evaluates them again in turn).
  BoundPruner(const Space& space, const CandidateCheck& check, bool on, std::uint64_t seeds = 1024);

  bool enabled() const noexcept { return enabled_; }
  // Candidates per block (the block of index i starts at i - i % block_size()).
  std::uint64_t block_size() const noexcept { return block_size_; }
  // Scratch space one worker reuses between blocks.
  struct Scratch {
    model::Scenario scenario;
    CandidateCheck::BoundEnvelope envelope;
    std::vector<std::uint32_t> digits;
  };
  // Outcome::kFeasible when some member of the cursor's block may be on the front; otherwise the rejection code
  // for all of them: the first constraint their bounds cannot meet, or CandidateCheck::bound_code() when a seed
  // point strictly dominates their best possible objectives.
  int block_rejection(const Cursor& cursor, Scratch& scratch) const;
  std::size_t seed_front_size() const noexcept { return seed_.size(); }

private:
  const Space* space_;
  const CandidateCheck* check_;
  bool enabled_ = false;
  int position_ = -1;                  // blocks share digits 0..position_ (-1: the whole space is one block)
  std::uint64_t block_size_ = 1;
  std::vector<int> enumerated_;        // positions after position_ whose axes change bound bytes
  ParetoArchive seed_;
};

}  // namespace shardmeter::search
