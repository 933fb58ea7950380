#include "results/report/plot_scale.hpp"

#include <algorithm>
#include <cmath>

namespace shardmeter::results::svg {

namespace {

// The 1, 2, 5 x 10^k nearest to `raw` (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990, with
// rounding): about `target` ticks, never fewer than target / 2.
double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
  return nice * magnitude;
}

// Removes floating-point residue from k * step (0.30000000000000004 -> 0.3): rounds to 1e-6 of the step's power of
// ten, multiplying or dividing by an exact power of ten so the division is correctly rounded.
double snap(double value, double step) {
  const int exponent = 6 - static_cast<int>(std::floor(std::log10(step)));
  const double scale = std::pow(10.0, std::abs(exponent));
  return exponent >= 0 ? std::round(value * scale) / scale : std::round(value / scale) * scale;
}

}  // namespace

double AxisScale::fraction(double value) const {
  if (log) {
    const double span = std::log10(hi) - std::log10(lo);
    return span > 0 ? (std::log10(value) - std::log10(lo)) / span : 0.5;
  }
  return hi > lo ? (value - lo) / (hi - lo) : 0.5;
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const double step = nice_step((hi - lo) / std::max(1, target - 1));
  std::vector<double> ticks;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) ticks.push_back(snap(k * step, step));
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> ticks;
  const auto add_multiples = [&](std::initializer_list<double> multiples) {
    ticks.clear();
    for (int e = static_cast<int>(std::floor(std::log10(lo))); e <= static_cast<int>(std::ceil(std::log10(hi))); ++e)
      for (const double m : multiples) {
        const double v = m * std::pow(10.0, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
      }
  };
  add_multiples({1});
  if (ticks.size() < 3) add_multiples({1, 2, 5});
  if (ticks.size() < 3) add_multiples({1, 2, 3, 4, 5, 6, 7, 8, 9});
  return ticks;
}

AxisScale make_axis_scale(const std::vector<double>& values, Scale scale) {
  AxisScale axis;
  std::vector<double> finite;
  for (const double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  if (finite.empty()) {
    axis.ticks = linear_ticks(0, 1);
    return axis;
  }
  const auto [min_it, max_it] = std::minmax_element(finite.begin(), finite.end());
  const double lo = *min_it, hi = *max_it;
  const bool positive = lo > 0;
  axis.log = positive && (scale == Scale::log || (scale == Scale::automatic && hi / lo >= kLogRatio));

  if (axis.log) {
    // 6 % of the log span (at least a tenth of a decade) on each side keeps markers off the frame.
    const double pad = std::max(0.1, 0.06 * (std::log10(hi) - std::log10(lo)));
    axis.lo = std::pow(10.0, std::log10(lo) - pad);
    axis.hi = std::pow(10.0, std::log10(hi) + pad);
    axis.ticks = log_ticks(axis.lo, axis.hi);
    return axis;
  }
  double span = hi - lo;
  if (span <= 0) span = lo != 0 ? std::fabs(lo) * 0.2 : 1.0;   // one value: a window around it
  axis.lo = lo - 0.06 * span;
  axis.hi = hi + 0.06 * span;
  if (lo >= 0 && axis.lo < 0) axis.lo = 0;   // a positive quantity never gets a negative axis
  // Like matplotlib's default margins: the frame hugs the padded data, the ticks fall inside it.
  axis.ticks = linear_ticks(axis.lo, axis.hi);
  return axis;
}

}  // namespace shardmeter::results::svg
