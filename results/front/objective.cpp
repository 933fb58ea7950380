#include "results/front/objective.hpp"

namespace shardmeter::results {

using model::Direction;

std::string_view to_string(Direction d) noexcept { return d == Direction::maximize ? "max" : "min"; }

std::optional<Direction> parse_direction(std::string_view text) noexcept {
  if (text == "min" || text == "minimize") return Direction::minimize;
  if (text == "max" || text == "maximize") return Direction::maximize;
  return std::nullopt;
}

std::string describe_objectives(const std::vector<model::Objective>& objectives) {
  std::string text;
  for (const model::Objective& o : objectives)
    text += (text.empty() ? "" : ", ") + std::string(to_string(o.direction)) + " " + std::string(o.name());
  return text;
}

}  // namespace shardmeter::results
