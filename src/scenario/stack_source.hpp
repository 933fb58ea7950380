#pragma once
// Whether a scenario's plan.stack was given (by the file or a --set) or implied by the rule of the key table
// (torch_fsdp2 for fsdp / hsdp sharding, else megatron_te; docs/scenarios.md "The software stack"): what
// `estimate` prints as "chosen" and `estimate --json` as plan.stack_source.
#include <string_view>

#include "src/scenario/scenario_document.hpp"

namespace shardmeter::cli {

inline constexpr std::string_view kStackGiven = "given";
inline constexpr std::string_view kStackImplied = "implied";

// kStackGiven or kStackImplied.
std::string_view stack_source(const ScenarioDocument& doc);

}  // namespace shardmeter::cli
