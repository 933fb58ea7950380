#include "results/front/front_picks.hpp"

#include <cmath>
#include <vector>

#include "model/metrics.hpp"
#include "results/front/pareto.hpp"

namespace shardmeter::results {

std::size_t knee_of(std::span<const std::pair<double, double>> points) {
  double c_min = points.front().first, c_max = c_min, t_min = points.front().second, t_max = t_min;
  std::size_t cheapest = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [c, t] = points[i];
    c_min = std::min(c_min, c);
    c_max = std::max(c_max, c);
    t_min = std::min(t_min, t);
    t_max = std::max(t_max, t);
    const auto [cc, ct] = points[cheapest];
    if (c < cc || (c == cc && t > ct)) cheapest = i;
  }
  const auto norm = [](double v, double lo, double hi) {
    const double span = std::log(hi) - std::log(lo);
    return span > 0 ? (std::log(v) - std::log(lo)) / span : 0.0;
  };
  std::size_t knee = cheapest;
  double best = 0;   // only strictly favourable points (u - v > 0) can beat the cheapest plan
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [c, t] = points[i];
    const double score = norm(t, t_min, t_max) - norm(c, c_min, c_max);
    const bool cheaper_tie = std::fabs(score - best) <= 1e-12 && best > 0 && c < points[knee].first;
    if (score > best + 1e-12 || cheaper_tie) {
      best = std::max(best, score);
      knee = i;
    }
  }
  return knee;
}

std::optional<FrontPicks> pick_front(std::span<const Row> rows) {
  // Loss-equivalent throughput where the file has it (equal to tokens_per_s for synchronous plans): a DiLoCo plan's
  // trained tokens are worth token_efficiency each (docs/model.md §9.4).
  const std::string_view throughput =
      !rows.empty() && rows.front().count("effective_tokens_per_s") > 0 ? "effective_tokens_per_s" : "tokens_per_s";
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double c = number(rows[i], "total_cost_usd"), t = number(rows[i], throughput);
    if (std::isfinite(c) && std::isfinite(t)) usable.push_back(i);
  }
  if (usable.empty()) return std::nullopt;
  FrontPicks picks;
  picks.cheapest = picks.fastest = usable.front();
  for (const std::size_t i : usable) {
    const double c = number(rows[i], "total_cost_usd"), t = number(rows[i], throughput);
    const double cc = number(rows[picks.cheapest], "total_cost_usd"), ct = number(rows[picks.cheapest], throughput);
    if (c < cc || (c == cc && t > ct)) picks.cheapest = i;
    const double fc = number(rows[picks.fastest], "total_cost_usd"), ft = number(rows[picks.fastest], throughput);
    if (t > ft || (t == ft && c < fc)) picks.fastest = i;
  }
  // The knee is defined on the cost/throughput front; a file searched for other objectives may hold more rows.
  const std::vector<std::size_t> front =
      pareto_front(rows, model::Objective{&model::metric("total_cost_usd"), model::Direction::minimize},
                   model::Objective{model::find_metric(throughput), model::Direction::maximize});
  std::vector<std::pair<double, double>> points;
  std::vector<std::size_t> index;
  for (const std::size_t i : front) {
    const double c = number(rows[i], "total_cost_usd"), t = number(rows[i], throughput);
    if (c > 0 && t > 0 && std::isfinite(c) && std::isfinite(t)) {
      points.emplace_back(c, t);
      index.push_back(i);
    }
  }
  picks.knee = points.empty() ? picks.cheapest : index[knee_of(points)];
  return picks;
}

std::optional<std::size_t> pick_by_name(const FrontPicks& picks, std::string_view name) {
  if (name == "cheapest") return picks.cheapest;
  if (name == "fastest") return picks.fastest;
  if (name == "knee") return picks.knee;
  return std::nullopt;
}

}  // namespace shardmeter::results
