#include "src/scenario/range.hpp"

#include <cmath>

#include <fmt/format.h>

namespace shardmeter::cli {

bool Range::contains(double v) const {
  if (std::isnan(v)) return false;
  if (or_zero && v == 0) return true;
  if (min_exclusive ? !(v > min) : !(v >= min)) return false;
  return v <= max;
}

namespace {

// 1048576 rather than 1.04858e+06; 0.85 as 0.85.
std::string bound_text(double v) {
  if (std::fabs(v) < 1e15 && v == std::floor(v)) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:g}", v);
}

}  // namespace

std::string Range::text() const {
  if (or_zero) return "0 or " + Range{min, max, min_exclusive}.text();
  const bool has_min = std::isfinite(min);
  const bool has_max = std::isfinite(max);
  if (has_min && has_max && !min_exclusive) return "between " + bound_text(min) + " and " + bound_text(max);
  if (has_min && has_max) return "greater than " + bound_text(min) + " and at most " + bound_text(max);
  if (has_min) return (min_exclusive ? "greater than " : "at least ") + bound_text(min);
  if (has_max) return "at most " + bound_text(max);
  return "finite";
}

}  // namespace shardmeter::cli
