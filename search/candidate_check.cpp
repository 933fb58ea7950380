#include "search/candidate_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "model/parallel/consistency.hpp"
#include "model/spec/enum_names.hpp"
#include "model/job/evaluate.hpp"
#include "model/spec/field_id.hpp"
#include "model/memory/memory.hpp"

namespace shardmeter::search {

namespace {

// What a GPU quota reads: every island entry's GPU name, size and repeat count, and the entry count.
constexpr model::FieldSet kQuotaInputs = {model::FieldId::cluster_islands, model::FieldId::island_gpu_name,
                                          model::FieldId::island_gpus, model::FieldId::island_count};

std::int64_t gpus_of_type(const model::Scenario& s, std::string_view gpu) noexcept {
  std::int64_t n = 0;
  for (int i = 0; i < s.cluster.island_entries && i < model::kMaxIslands; ++i) {
    const model::IslandSpec& island = s.cluster.islands[static_cast<std::size_t>(i)];
    if (island.gpu.name.view() == gpu) n += island.total_gpus();
  }
  return n;
}

}  // namespace

CandidateCheck::CandidateCheck(const Space& space, const Goal& goal, bool prune)
    : objectives_(goal.objectives.empty() ? default_objectives() : goal.objectives),
      constraints_(goal.constraints),
      quotas_(goal.quotas) {
  if (objectives_.size() > static_cast<std::size_t>(kMaxObjectives))
    throw std::invalid_argument(fmt::format("at most {} objectives are supported", kMaxObjectives));
  for (const model::Objective& o : objectives_)
    if (o.metric == nullptr) throw std::invalid_argument("an objective has no metric");
  for (const MetricConstraint& c : constraints_)
    if (c.metric == nullptr) throw std::invalid_argument(fmt::format("constraint '{}' has no metric", c.name));

  quota_code_ = model::kRejectReasonCount;
  constraint_code_ = quota_code_ + static_cast<int>(quotas_.size());
  non_finite_code_ = constraint_code_ + static_cast<int>(constraints_.size());
  bound_code_ = non_finite_code_ + 1;
  objectives_bounded_ = true;
  for (const model::Objective& o : objectives_) {
    const model::MetricBound b = model::metric_bound(*o.metric, space.base());
    const double best = o.direction == model::Direction::minimize ? b.lower : b.upper;
    if (!std::isfinite(best)) objectives_bounded_ = false;
  }

  // A rejection found before the model ran depends only on the bytes its rule reads (and, because the
  // rules run in order, on the bytes every earlier rule read). Past the last axis that changes those bytes,
  // the whole block shares the outcome.
  no_prune_ = space.axis_count() - 1;
  int all_consistency = -1;
  for (int r = 0; r < model::kRejectReasonCount; ++r) {
    const model::ConsistencyInputs in = model::consistency_inputs(static_cast<model::RejectReason>(r));
    const int position = in.unbounded ? no_prune_ : space.last_position_touching(model::field_bytes(in.fields));
    consistency_prune_[static_cast<std::size_t>(r)] = prune ? position : no_prune_;
    if (!in.unbounded) all_consistency = std::max(all_consistency, position);
  }
  const int quota_position = space.last_position_touching(model::field_bytes(kQuotaInputs));
  quota_prune_ = prune ? std::max(all_consistency, quota_position) : no_prune_;
}

std::vector<std::string> CandidateCheck::code_names() const {
  std::vector<std::string> names;
  for (int r = 0; r < model::kRejectReasonCount; ++r)
    names.emplace_back(model::enum_name(static_cast<model::RejectReason>(r)));
  for (const GpuQuota& q : quotas_) names.push_back(fmt::format("gpu_quota:{}", q.gpu));
  for (const MetricConstraint& c : constraints_) names.push_back(c.name);
  names.emplace_back("non_finite_objective");
  names.emplace_back("bound_pruned");
  return names;
}

Outcome CandidateCheck::screen(const model::Scenario& s) const noexcept {
  model::ParameterCounts params;
  return screen(s, params);
}

Outcome CandidateCheck::screen(const model::Scenario& s, model::ParameterCounts& params) const noexcept {
  Outcome out;
  if (const model::Violation v = model::check_consistency(s)) {
    out.code = static_cast<int>(v.reason);
    out.prune_position = consistency_prune_[static_cast<std::size_t>(v.reason)];
    return out;
  }
  for (std::size_t q = 0; q < quotas_.size(); ++q) {
    if (gpus_of_type(s, quotas_[q].gpu) > quotas_[q].max_gpus) {
      out.code = quota_code_ + static_cast<int>(q);
      out.prune_position = quota_prune_;
      return out;
    }
  }
  out.prune_position = no_prune_;
  params = model::count_parameters(s.model);
  // Cheap memory bound: model states alone over capacity means evaluate() would say out_of_memory as well.
  if (memory_screen_ && model::model_states_exceed_memory(s, params)) {
    out.code = static_cast<int>(model::RejectReason::out_of_memory);
    out.memory_bound = true;
  }
  return out;
}

Outcome CandidateCheck::check(const model::Scenario& s, model::Estimate& estimate) const noexcept {
  model::ParameterCounts params;
  const Outcome screened = screen(s, params);
  if (screened.code != Outcome::kFeasible) return screened;
  return check_screened(s, screened, params, estimate);
}

Outcome CandidateCheck::check_screened(const model::Scenario& s, const Outcome& screened,
                                       model::Estimate& estimate) const noexcept {
  return check_screened(s, screened, model::count_parameters(s.model), estimate);
}

Outcome CandidateCheck::check_screened(const model::Scenario& s, const Outcome& screened,
                                       const model::ParameterCounts& params, model::Estimate& estimate) const noexcept {
  Outcome out = screened;
  // screen() ran the consistency rules: evaluate without them, into the caller's Estimate (no zero-fill of its
  // kilobytes of island slots; model/job/evaluate.hpp), with the parameter counts screen() made.
  model::evaluate_consistent_into(s, params, estimate);
  out.estimated = true;
  if (!estimate.feasible) {
    out.code = static_cast<int>(estimate.reject_reason == model::RejectReason::none ? model::RejectReason::out_of_memory
                                                                                     : estimate.reject_reason);
    return out;
  }
  for (std::size_t c = 0; c < constraints_.size(); ++c) {
    const MetricConstraint& k = constraints_[c];
    const double x = k.metric->get(estimate);
    const bool ok = k.limit == Limit::at_most ? x <= k.value : x >= k.value;  // NaN fails both
    if (!ok) {
      out.code = constraint_code_ + static_cast<int>(c);
      return out;
    }
  }
  for (std::size_t o = 0; o < objectives_.size(); ++o) {
    const double x = objectives_[o].value(estimate);
    if (!std::isfinite(x)) {
      out.code = non_finite_code_;
      return out;
    }
    out.objectives[o] = objectives_[o].direction == model::Direction::minimize ? x : -x;
  }
  return out;
}

void CandidateCheck::add_bounds(const model::Scenario& s, BoundEnvelope& env) const {
  auto widen = [&](model::MetricBound& into, const model::MetricBound& b) {
    if (env.empty) {
      into = b;
      return;
    }
    into.lower = std::min(into.lower, b.lower);   // NaN-free: metric_bound gives finite values or infinities
    into.upper = std::max(into.upper, b.upper);
  };
  env.constraints.resize(constraints_.size());
  for (std::size_t o = 0; o < objectives_.size(); ++o) widen(env.objectives[o], model::metric_bound(*objectives_[o].metric, s));
  for (std::size_t c = 0; c < constraints_.size(); ++c)
    widen(env.constraints[c], model::metric_bound(*constraints_[c].metric, s));
  env.empty = false;
}

int CandidateCheck::bound_infeasible(const BoundEnvelope& env) const noexcept {
  if (env.empty) return Outcome::kFeasible;
  for (std::size_t c = 0; c < constraints_.size(); ++c) {
    const MetricConstraint& k = constraints_[c];
    const model::MetricBound& b = env.constraints[c];
    // Every value lies in [lower, upper]: at_most fails for all when lower > limit, at_least when upper < limit.
    if (k.limit == Limit::at_most ? b.lower > k.value : b.upper < k.value) return constraint_code_ + static_cast<int>(c);
  }
  return Outcome::kFeasible;
}

ObjectiveVector CandidateCheck::bound_objectives(const BoundEnvelope& env) const noexcept {
  ObjectiveVector v{};
  for (std::size_t o = 0; o < objectives_.size(); ++o) {
    const model::MetricBound& b = env.objectives[o];
    v[o] = objectives_[o].direction == model::Direction::minimize ? b.lower : -b.upper;
    if (std::isnan(v[o]) || env.empty) v[o] = -std::numeric_limits<double>::infinity();
  }
  return v;
}

ObjectiveVector CandidateCheck::raw_objectives(const model::Estimate& estimate) const noexcept {
  ObjectiveVector v{};
  for (std::size_t o = 0; o < objectives_.size(); ++o) v[o] = objectives_[o].value(estimate);
  return v;
}

}  // namespace shardmeter::search
