#pragma once
// Cross-field consistency of a scenario: the rules that must hold before an estimate means anything. Shared by
// scenario validation (errors with file positions) and the search (counted rejections, pruned by blocks).
//
// The rules are one table of {reason, scope, inputs, check} (consistency.cpp): check_consistency runs it in
// order and returns the first violation; consistency_inputs derives from it what the search may prune on. A new
// rule is one row, and both follow.
#include <span>
#include <string_view>

#include "model/spec/field_id.hpp"
#include "model/spec/reject_reason.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

struct Violation {
  RejectReason reason = RejectReason::none;
  FieldId field = FieldId::none;     // the value to change
  double value = 0;
  FieldId other = FieldId::none;     // the value it conflicts with
  double other_value = 0;
  int island = -1;                   // island entry index for island fields
  explicit operator bool() const { return reason != RejectReason::none; }
};

// What a failed rule blames (a Violation without its reason); `field` is none when the rule holds.
struct Blame {
  FieldId field = FieldId::none;
  double value = 0;
  FieldId other = FieldId::none;
  double other_value = 0;
  int island = -1;
  explicit operator bool() const { return field != FieldId::none; }
};

// A job rule runs once. Consecutive island rules run as one loop over the island entries: every island rule for
// entry 0, then every one for entry 1, ...; so the first violation is the first entry's, whichever rule finds it.
enum class RuleScope : std::uint8_t { job, island };

struct ConsistencyRule {
  RejectReason reason;
  RuleScope scope;
  FieldSet inputs;   // every field `check` reads
  // What the rule blames when it fails, or an empty Blame. `island`: the entry for island rules, -1 for job rules.
  Blame (*check)(const Scenario& scenario, int island) noexcept;
};

// The rules, in the order check_consistency runs them.
std::span<const ConsistencyRule> consistency_rules() noexcept;

// The first violated rule, or an empty Violation.
Violation check_consistency(const Scenario& scenario) noexcept;

// Every field check_consistency may read before it can return `reason`: the inputs of every rule up to the last
// one that returns it (up to the end of its island loop), because the earlier rules must have held. If none of
// these fields differ between two scenarios, both get the same first violation (search/README.md, "Pruning").
// `unbounded` is set for reasons no rule returns (out_of_memory, none): those can never be pruned.
struct ConsistencyInputs {
  FieldSet fields;
  bool unbounded = false;
};
ConsistencyInputs consistency_inputs(RejectReason reason) noexcept;

// Pipeline stages one island hosts per model replica: plan.pp, or pp / islands when the pipeline spans islands.
int stages_per_island(const Scenario& scenario) noexcept;
// Model replicas (data-parallel degree) an island entry hosts, per island of the entry.
int island_data_parallel(const Scenario& scenario, int island_entry) noexcept;
// Model replicas across the whole job (synchronous data parallelism spans every island).
int total_data_parallel(const Scenario& scenario) noexcept;

// A short phrase: "does not divide", "is not divisible by", ...
std::string_view describe(RejectReason reason) noexcept;

}  // namespace shardmeter::model
