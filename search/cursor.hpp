#pragma once
// A position in a Space with its scenario materialised. Moving to the next index rewrites only the axes whose
// digits change (usually one), so walking a range costs a few memcpy calls per candidate, not a scenario copy.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "model/spec/scenario.hpp"
#include "search/space.hpp"

namespace shardmeter::search {

class Cursor {
public:
  explicit Cursor(const Space& space);

  void seek(std::uint64_t index) noexcept;
  // index + 1 (the odometer carries into more significant digits). Past the end it wraps to 0.
  void next() noexcept { carry_from(space_->axis_count() - 1); }
  // The first index of the next block of candidates sharing digits 0..position (position -1: the space end,
  // which wraps to 0). next() == skip_block(last position).
  void skip_block(int position) noexcept;
  // Changes one digit (anneal moves).
  void set_digit(int position, std::uint32_t value) noexcept;

  std::uint64_t index() const noexcept { return index_; }
  std::uint32_t digit(int position) const noexcept { return digits_[static_cast<std::size_t>(position)]; }
  const model::Scenario& scenario() const noexcept { return scenario_; }
  // The candidate's label on each axis, in the space's axis order (Space::labels(index()) without copies): views of
  // the axes' own labels, valid while the space lives. `out` holds one entry per axis.
  void labels(std::span<std::string_view> out) const noexcept;

private:
  void carry_from(int position) noexcept;

  const Space* space_;
  model::Scenario scenario_;
  std::vector<std::uint32_t> digits_;  // by position
  std::uint64_t index_ = 0;
};

}  // namespace shardmeter::search
