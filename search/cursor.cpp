#include "search/cursor.hpp"

namespace shardmeter::search {

Cursor::Cursor(const Space& space)
    : space_(&space), scenario_(space.base()), digits_(static_cast<std::size_t>(space.axis_count()), 0) {
  for (int p = 0; p < space.axis_count(); ++p) space.apply(scenario_, p, 0);
}

void Cursor::seek(std::uint64_t index) noexcept {
  index_ = index % space_->size();
  std::uint64_t rest = index_;
  for (int p = space_->axis_count() - 1; p >= 0; --p) {
    const std::uint32_t radix = space_->radix(p);
    const auto d = static_cast<std::uint32_t>(rest % radix);
    rest /= radix;
    if (d != digits_[static_cast<std::size_t>(p)]) {
      digits_[static_cast<std::size_t>(p)] = d;
      space_->apply(scenario_, p, d);
    }
  }
}

void Cursor::skip_block(int position) noexcept {
  // Zero the digits after `position`, then add one at `position`.
  for (int p = space_->axis_count() - 1; p > position; --p) {
    if (digits_[static_cast<std::size_t>(p)] != 0) {
      digits_[static_cast<std::size_t>(p)] = 0;
      space_->apply(scenario_, p, 0);
    }
  }
  if (position < 0) {
    index_ = 0;
    return;
  }
  index_ -= index_ % space_->block_size(position);
  carry_from(position);
}

void Cursor::carry_from(int position) noexcept {
  // Odometer increment at `position`: adds block_size(position) to the index, carrying to the left.
  for (int p = position; p >= 0; --p) {
    std::uint32_t& d = digits_[static_cast<std::size_t>(p)];
    if (++d < space_->radix(p)) {
      space_->apply(scenario_, p, d);
      index_ += space_->block_size(position);
      return;
    }
    d = 0;
    space_->apply(scenario_, p, 0);
  }
  index_ = 0;  // wrapped past the last candidate
}

void Cursor::set_digit(int position, std::uint32_t value) noexcept {
  std::uint32_t& d = digits_[static_cast<std::size_t>(position)];
  if (d == value) return;
  index_ = index_ - std::uint64_t{d} * space_->block_size(position) + std::uint64_t{value} * space_->block_size(position);
  d = value;
  space_->apply(scenario_, position, value);
}

void Cursor::labels(std::span<std::string_view> out) const noexcept {
  const std::span<const int> order = space_->order();
  for (int p = 0; p < space_->axis_count(); ++p) {
    const auto a = static_cast<std::size_t>(order[static_cast<std::size_t>(p)]);
    out[a] = space_->axis(static_cast<int>(a)).labels[digits_[static_cast<std::size_t>(p)]];
  }
}

}  // namespace shardmeter::search
