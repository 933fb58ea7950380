#include "src/scenario/stack_source.hpp"

namespace shardmeter::cli {

std::string_view stack_source(const ScenarioDocument& doc) {
  return scalar_at(doc, "plan.stack") ? kStackGiven : kStackImplied;
}

}  // namespace shardmeter::cli
