#include "src/sweep/sweep_analysis.hpp"

#include <cmath>
#include <limits>

namespace shardmeter::cli {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

Knee find_knee(std::span<const double> cost, std::span<const double> throughput, double fraction) {
  Knee k;
  const std::size_t n = std::min(cost.size(), throughput.size());
  k.marginal.assign(n, kNaN);
  k.ratio.assign(n, kNaN);
  if (n < 2) return k;
  // below[j]: step j returns less than `fraction` of the first step's tokens/s per dollar.
  std::vector<bool> below(n, false);
  for (std::size_t j = 1; j < n; ++j) {
    const double dc = cost[j] - cost[j - 1], dr = throughput[j] - throughput[j - 1];
    if (dc > 0) k.marginal[j] = dr / dc;
  }
  const double first = k.marginal[1];
  if (std::isnan(first)) {
    k.status = KneeStatus::cost_flat;
    return k;
  }
  if (first <= 0) {
    k.status = KneeStatus::at_start;
    k.point = 0;
    return k;
  }
  for (std::size_t j = 1; j < n; ++j) {
    if (!std::isnan(k.marginal[j])) {
      k.ratio[j] = k.marginal[j] / first;
      below[j] = k.ratio[j] < fraction;
    } else {
      // A step that costs nothing more pays if it adds anything at all.
      below[j] = !(throughput[j] > throughput[j - 1]);
    }
  }
  if (n < 3) {
    k.status = KneeStatus::too_few_points;
    return k;
  }
  if (!below[n - 1]) {
    k.status = KneeStatus::not_reached;
    return k;
  }
  std::size_t tail = n - 1;  // first step of the tail of steps that all return less than `fraction`
  while (tail > 1 && below[tail - 1]) --tail;
  k.status = KneeStatus::found;
  k.point = tail - 1;
  return k;
}

Transition find_transition(std::span<const std::optional<double>> x, std::span<const double> share, double level) {
  Transition t;
  const std::size_t n = share.size();
  if (n == 0) return t;
  bool any_below = false, any_above = false;
  for (std::size_t i = 0; i < n; ++i) (share[i] < level ? any_below : any_above) = true;
  if (!any_above) {
    t.status = CrossingStatus::never;
    return t;
  }
  if (!any_below) {
    t.status = CrossingStatus::always;
    return t;
  }
  t.status = CrossingStatus::crosses;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const bool a = share[i] < level, b = share[i + 1] < level;
    if (a == b) continue;
    Crossing c;
    c.after = i;
    c.rising = share[i + 1] > share[i];
    c.t = (level - share[i]) / (share[i + 1] - share[i]);  // the two shares differ: one is below, one is not
    if (i < x.size() && i + 1 < x.size() && x[i] && x[i + 1]) c.x = *x[i] + c.t * (*x[i + 1] - *x[i]);
    t.crossings.push_back(c);
  }
  return t;
}

std::optional<double> label_number(const std::string& label) {
  if (label.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(label, &used);
    if (used != label.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace shardmeter::cli
