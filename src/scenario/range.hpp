#pragma once
// The interval a numeric key accepts, and the phrase an error uses when a value falls outside it
// ("at least 1", "greater than 0", "between 0 and 0.5").
#include <limits>
#include <string>

namespace shardmeter::cli {

struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  bool or_zero = false;  // 0 is accepted besides [min, max] (0 = none / unknown)

  static constexpr Range at_least(double lo) { return Range{lo, std::numeric_limits<double>::infinity()}; }
  static constexpr Range positive() { return Range{0, std::numeric_limits<double>::infinity(), true}; }
  static constexpr Range between(double lo, double hi) { return Range{lo, hi}; }
  // An efficiency: [0.001, 1]. Nearer 0 a time divided by it overflows (issue 14).
  static constexpr Range fraction() { return Range{1e-3, 1}; }
  static constexpr Range zero_or(double lo, double hi) { return Range{lo, hi, false, true}; }
  bool contains(double v) const;
  std::string text() const;
};

}  // namespace shardmeter::cli
