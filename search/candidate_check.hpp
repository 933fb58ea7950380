#pragma once
// Evaluating one candidate in stages, cheapest first, with a counted reason for every rejection
// (STYLE.md principle 4): consistency -> GPU quotas -> the model's estimate -> memory fit -> metric constraints.
//
// Rejection codes: [0, kRejectReasonCount) are model::RejectReason values (consistency and out_of_memory), then
// one code per GPU quota, one per metric constraint, one for estimates with a non-finite objective, and a last one
// for candidates pruned by bounds (never estimated: their block's optimistic bound is infeasible or dominated).
#include <array>
#include <string>
#include <vector>

#include "model/spec/estimate.hpp"
#include "model/job/metric_bounds.hpp"
#include "model/kernels/parameters.hpp"
#include "model/spec/reject_reason.hpp"
#include "model/spec/scenario.hpp"
#include "search/goal.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

// Objective values oriented for minimisation (maximised objectives negated), kMaxObjectives slots.
using ObjectiveVector = std::array<double, kMaxObjectives>;

struct Outcome {
  static constexpr int kFeasible = -1;
  int code = kFeasible;        // rejection code, or kFeasible
  bool estimated = false;      // model::evaluate ran
  bool memory_bound = false;   // out_of_memory decided by the model-state bound, before model::evaluate
  bool bound_pruned = false;   // rejected by pruning by bounds (search/bound_prune.hpp), before model::evaluate
  // For rejections decided before the model ran: every candidate sharing this candidate's digits at positions
  // 0..prune_position gets the same rejection (-1: the whole space). Equals the last position when no block
  // larger than the candidate itself can be inferred.
  int prune_position = 0;
  ObjectiveVector objectives{};
};

class CandidateCheck {
public:
  // Throws std::invalid_argument for an empty or oversized objective list or a missing metric.
  CandidateCheck(const Space& space, const Goal& goal, bool prune);

  int objective_count() const noexcept { return static_cast<int>(objectives_.size()); }
  const std::vector<model::Objective>& objectives() const noexcept { return objectives_; }
  int code_count() const noexcept { return bound_code_ + 1; }
  std::vector<std::string> code_names() const;

  // The stages before the model (consistency, quotas, the model-state memory bound): kFeasible here means
  // "worth an estimate".
  Outcome screen(const model::Scenario& scenario) const noexcept;
  // The same, leaving the scenario's parameter counts in `params` when it passes the consistency rules and quotas
  // (they are counted once per candidate: the memory bound and the estimate both read them).
  Outcome screen(const model::Scenario& scenario, model::ParameterCounts& params) const noexcept;
  // The stages from the model on, for a candidate `screened` passed (screen(scenario).code == kFeasible).
  Outcome check_screened(const model::Scenario& scenario, const Outcome& screened, model::Estimate& estimate) const noexcept;
  // The same with the counts screen(scenario, params) left.
  Outcome check_screened(const model::Scenario& scenario, const Outcome& screened, const model::ParameterCounts& params,
                         model::Estimate& estimate) const noexcept;

  // The model-state memory bound before the estimate (on by default). It repeats part of the estimate's work, so
  // it pays only where it rejects a large enough share of the candidates that reach it: the search turns it off
  // where its sample says otherwise (search.cpp, memory_screen_pays). Off, the estimate rejects the same
  // candidates as out_of_memory itself: the same outcome codes and fronts, more candidates counted as estimated.
  void set_memory_screen(bool on) noexcept { memory_screen_ = on; }
  bool memory_screen() const noexcept { return memory_screen_; }
  // All stages. `estimate` receives the model's estimate when `estimated` is set. It must be a default-constructed
  // Estimate or one a previous check (or model::evaluate) wrote: the model writes into it without zero-filling it
  // (model::evaluate_into), so reuse one per thread.
  Outcome check(const model::Scenario& scenario, model::Estimate& estimate) const noexcept;

  // Objective values of an estimate as the user reads them (not negated).
  ObjectiveVector raw_objectives(const model::Estimate& estimate) const noexcept;

  // Pruning by bounds (search/README.md): the code counting candidates whose block's optimistic bound is dominated
  // (a block that cannot meet a constraint is counted under that constraint's code); and the envelope of the bounds
  // over several scenarios.
  int bound_code() const noexcept { return bound_code_; }
  // True when every objective has a proven bound in its direction (model/job/metric_bounds.hpp), so that domination
  // of the bound vector can be tested; constraints are tested either way.
  bool objectives_bounded() const noexcept { return objectives_bounded_; }
  // Running envelope of the bounds of the objectives' and constraints' metrics: lower = min, upper = max.
  struct BoundEnvelope {
    std::array<model::MetricBound, kMaxObjectives> objectives{};
    std::vector<model::MetricBound> constraints;
    bool empty = true;
  };
  void add_bounds(const model::Scenario& scenario, BoundEnvelope& envelope) const;
  // The rejection code of the first constraint no scenario inside the envelope can satisfy, or Outcome::kFeasible.
  int bound_infeasible(const BoundEnvelope& envelope) const noexcept;
  // The best objective vector (minimisation orientation) any scenario inside the envelope can have; -inf where an
  // objective has no bound.
  ObjectiveVector bound_objectives(const BoundEnvelope& envelope) const noexcept;

private:
  std::vector<model::Objective> objectives_;
  std::vector<MetricConstraint> constraints_;
  std::vector<GpuQuota> quotas_;
  std::array<int, model::kRejectReasonCount> consistency_prune_{};
  int quota_prune_ = 0;
  int no_prune_ = 0;
  int quota_code_ = 0;        // first quota code
  int constraint_code_ = 0;   // first constraint code
  int non_finite_code_ = 0;
  int bound_code_ = 0;
  bool objectives_bounded_ = false;
  bool memory_screen_ = true;
};

}  // namespace shardmeter::search
