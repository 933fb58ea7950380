#pragma once
// Axis scales and tick positions for the SVG plots: "nice" linear ticks (1, 2, 5 x 10^k steps) and log ticks
// (decades, with 2x and 5x subdivisions when the range spans less than two decades).
#include <vector>

namespace shardmeter::results::svg {

enum class Scale { automatic, linear, log };

// A resolved axis: the domain drawn (the data range plus 6 % padding on each side) and the tick values inside it.
struct AxisScale {
  bool log = false;
  double lo = 0;                 // domain, in data units
  double hi = 1;
  std::vector<double> ticks;     // ascending, inside [lo, hi]

  // Position of `value` in the domain: 0 at lo, 1 at hi (log10 distances on a log axis).
  double fraction(double value) const;
};

// `automatic` chooses log when every value is positive and max / min >= kLogRatio (the data span a decade or
// more); a log axis with a non-positive value falls back to linear. Empty input gives the domain [0, 1].
inline constexpr double kLogRatio = 10.0;
AxisScale make_axis_scale(const std::vector<double>& values, Scale scale);

// Ticks for [lo, hi] (lo <= hi): about `target` values at a step of 1, 2 or 5 x 10^k.
std::vector<double> linear_ticks(double lo, double hi, int target = 6);
// Ticks for [lo, hi] (0 < lo <= hi): powers of ten, plus 2x and 5x (and then 1..9x) multiples while there are fewer
// than three ticks.
std::vector<double> log_ticks(double lo, double hi);

}  // namespace shardmeter::results::svg
