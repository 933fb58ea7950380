#pragma once
// Cross-field consistency of a scenario: the checks that must pass before an estimate means anything.
// Shared by scenario validation (errors with file positions) and the search (counted rejections).
#include <string_view>

#include "model/field_id.hpp"
#include "model/reject_reason.hpp"
#include "model/scenario.hpp"

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

// The first violated rule, or an empty Violation.
Violation check_consistency(const Scenario& scenario) noexcept;

// Pipeline stages one island hosts per model replica: plan.pp, or pp / islands when the pipeline spans islands.
int stages_per_island(const Scenario& scenario) noexcept;
// Model replicas (data-parallel degree) an island entry hosts, per island of the entry.
int island_data_parallel(const Scenario& scenario, int island_entry) noexcept;
// Model replicas across the whole job (synchronous data parallelism spans every island).
int total_data_parallel(const Scenario& scenario) noexcept;

// A short phrase: "does not divide", "is not divisible by", ...
std::string_view describe(RejectReason reason) noexcept;

}  // namespace shardmeter::model
