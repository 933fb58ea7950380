#include "search/bound_prune.hpp"

#include <algorithm>
#include <cmath>

#include "model/job/metric_bounds.hpp"

namespace shardmeter::search {

namespace {

// Trailing axes that change bound bytes are enumerated while their combinations stay this few; fewer combinations
// give a tighter envelope, more give larger blocks.
constexpr std::uint64_t kMaxCombinations = 4;

// SplitMix64 (Steele et al. 2014), as sample_workload uses it, from a different fixed start.
std::uint64_t next_seed(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  std::uint64_t x = state;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// a strictly dominates b (minimisation): no worse anywhere, better somewhere.
bool strictly_dominates(const ObjectiveVector& a, const ObjectiveVector& b, int k) {
  bool better = false;
  for (int o = 0; o < k; ++o) {
    const auto i = static_cast<std::size_t>(o);
    if (!(a[i] <= b[i])) return false;
    if (a[i] < b[i]) better = true;
  }
  return better;
}

}  // namespace

BoundPruner::BoundPruner(const Space& space, const CandidateCheck& check, bool on, std::uint64_t seeds)
    : space_(&space), check_(&check), seed_(check.objective_count()) {
  if (!on || space.size() == 0) return;
  // Usable only if some constraint has a finite bound on the side it limits, or every objective has one.
  CandidateCheck::BoundEnvelope base;
  check.add_bounds(space.base(), base);
  bool usable = check.objectives_bounded();
  for (const model::MetricBound& b : base.constraints)
    if (std::isfinite(b.lower) || std::isfinite(b.upper)) usable = true;
  if (!usable) return;

  const model::ByteRanges bytes = model::metric_bound_bytes();
  position_ = space.last_position_touching(bytes);
  std::uint64_t combinations = 1;
  while (position_ >= 0 && space.touches(position_, bytes) && combinations * space.radix(position_) <= kMaxCombinations) {
    combinations *= space.radix(position_);
    enumerated_.insert(enumerated_.begin(), position_);
    --position_;
    while (position_ >= 0 && !space.touches(position_, bytes)) --position_;
  }
  block_size_ = position_ < 0 ? space.size() : space.block_size(position_);
  enabled_ = true;

  if (!check.objectives_bounded()) return;
  Cursor cursor(space);
  model::Estimate estimate;
  std::uint64_t state = 0xb0b0b0b0b0b0b0b0ULL;
  const std::uint64_t n = std::min<std::uint64_t>(seeds, space.size());
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t index = n == space.size() ? k : next_seed(state) % space.size();
    cursor.seek(index);
    const Outcome o = check.check(cursor.scenario(), estimate);
    if (o.code == Outcome::kFeasible) seed_.insert(index, o.objectives);
  }
}

int BoundPruner::block_rejection(const Cursor& cursor, Scratch& scratch) const {
  if (!enabled_) return Outcome::kFeasible;
  scratch.scenario = cursor.scenario();
  scratch.envelope.empty = true;
  // Every combination of the enumerated axes' values (an odometer over them); the other free axes change no bound
  // byte, so the envelope covers the whole block.
  scratch.digits.assign(enumerated_.size(), 0);
  for (;;) {
    for (std::size_t e = 0; e < enumerated_.size(); ++e) space_->apply(scratch.scenario, enumerated_[e], scratch.digits[e]);
    check_->add_bounds(scratch.scenario, scratch.envelope);
    bool carry = true;
    for (std::size_t e = enumerated_.size(); carry && e > 0;) {
      --e;
      if (++scratch.digits[e] < space_->radix(enumerated_[e])) carry = false;
      else scratch.digits[e] = 0;
    }
    if (carry) break;  // every combination done (or none to enumerate)
  }
  if (const int code = check_->bound_infeasible(scratch.envelope); code != Outcome::kFeasible) return code;
  if (seed_.empty()) return Outcome::kFeasible;
  const ObjectiveVector best = check_->bound_objectives(scratch.envelope);
  for (const ArchivePoint& p : seed_.points())
    if (strictly_dominates(p.objectives, best, check_->objective_count())) return check_->bound_code();
  return Outcome::kFeasible;
}

}  // namespace shardmeter::search
