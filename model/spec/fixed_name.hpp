#pragma once
// A short, fixed-capacity, trivially copyable name. Specs carry names (GPU type, island) without
// allocating, so a Scenario stays a plain value that the search copies millions of times per second.
#include <algorithm>
#include <cstring>
#include <string_view>

namespace shardmeter::model {

class FixedName {
public:
  static constexpr std::size_t kCapacity = 31;

  constexpr FixedName() = default;
  explicit FixedName(std::string_view text) { assign(text); }

  // Truncates at kCapacity characters; callers validate length at parse time.
  void assign(std::string_view text) {
    std::fill(std::begin(chars_), std::end(chars_), '\0');
    std::copy_n(text.data(), std::min(text.size(), kCapacity), chars_);
  }
  std::string_view view() const { return std::string_view(chars_); }
  bool empty() const { return chars_[0] == '\0'; }
  friend bool operator==(const FixedName& a, const FixedName& b) { return a.view() == b.view(); }

private:
  char chars_[kCapacity + 1] = {};
};

}  // namespace shardmeter::model
