#include "src/sweep/sweep_analysis.hpp"

#include <algorithm>
#include <cmath>

#include "results/front/front_picks.hpp"

namespace shardmeter::cli {

Knee find_knee(std::span<const double> total_cost, std::span<const double> speed) {
  static const results::PickAxes kAxes{{&model::metric("total_cost_usd"), model::Direction::minimize},
                                       {&model::metric("effective_tokens_per_s"), model::Direction::maximize}};
  std::vector<results::PickPoint> points;
  for (std::size_t i = 0; i < std::min(total_cost.size(), speed.size()); ++i)
    points.push_back({total_cost[i], speed[i], true});
  const auto picks = results::pick_points(points, kAxes);
  return picks ? Knee{true, picks->knee} : Knee{};
}

KneeCause knee_cause(const SizeFigures& before, const SizeFigures& after) {
  KneeCause c;
  const auto ratio = [](double a, double b) { return b > 0 && std::isfinite(a / b) ? a / b : 1.0; };
  c.step_factor = ratio(after.tokens_per_s / after.gpus, before.tokens_per_s / before.gpus);
  c.batch_factor = ratio(after.batch_efficiency, before.batch_efficiency);
  c.diloco_factor = ratio(after.diloco_efficiency, before.diloco_efficiency);
  double lowest = 1;
  const auto consider = [&](double factor, KneeCauseKind kind) {
    if (factor < lowest) lowest = factor, c.kind = kind;
  };
  consider(c.step_factor, KneeCauseKind::step);
  consider(c.batch_factor, KneeCauseKind::batch_efficiency);
  consider(c.diloco_factor, KneeCauseKind::diloco_convergence);
  if (c.kind == KneeCauseKind::step && before.gpus > 0 && after.gpus > 0 && before.optimizer_batch_tokens > 0) {
    const double batch_per_gpu_factor =
        (after.optimizer_batch_tokens / after.gpus) / (before.optimizer_batch_tokens / before.gpus);
    if (batch_per_gpu_factor <= 0.75 && 2 * after.optimizer_batch_tokens > after.optimal_batch_tokens)
      c.kind = KneeCauseKind::batch_limited;
  }
  return c;
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
