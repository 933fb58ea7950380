#pragma once
// An objective of a search: a metric column and whether smaller or larger is better.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardmeter::results {

enum class Direction : std::uint8_t { minimize, maximize };

struct Objective {
  std::string column;   // a metric column name, e.g. "total_cost_usd"
  Direction direction = Direction::minimize;
  friend bool operator==(const Objective&, const Objective&) = default;
};

// "min" / "max" (the spelling stored in result files).
std::string_view to_string(Direction d) noexcept;
// Accepts "min", "max", "minimize", "maximize"; nullopt otherwise.
std::optional<Direction> parse_direction(std::string_view text) noexcept;

}  // namespace shardmeter::results
