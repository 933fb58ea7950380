#include "results/front/objective.hpp"

namespace shardmeter::results {

std::string_view to_string(Direction d) noexcept { return d == Direction::maximize ? "max" : "min"; }

std::optional<Direction> parse_direction(std::string_view text) noexcept {
  if (text == "min" || text == "minimize") return Direction::minimize;
  if (text == "max" || text == "maximize") return Direction::maximize;
  return std::nullopt;
}

}  // namespace shardmeter::results
