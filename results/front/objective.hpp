#pragma once
// How result files spell an objective's direction. The objective itself is model::Objective (model/spec/objective.hpp):
// files store its metric's name and this spelling, and readers resolve the name in the metric table again.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/spec/objective.hpp"

namespace shardmeter::results {

// "min" / "max" (the spelling stored in result files).
std::string_view to_string(model::Direction d) noexcept;
// Accepts "min", "max", "minimize", "maximize"; nullopt otherwise.
std::optional<model::Direction> parse_direction(std::string_view text) noexcept;

// "min total_cost_usd, max tokens_per_s" (reports and the search's output).
std::string describe_objectives(const std::vector<model::Objective>& objectives);

}  // namespace shardmeter::results
