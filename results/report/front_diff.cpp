#include "results/report/front_diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "results/files/row_layout.hpp"

namespace shardmeter::results {

namespace {

std::vector<std::pair<double, double>> cost_throughput(const Table& t) {
  std::vector<std::pair<double, double>> points;
  for (const Row& r : t.rows) {
    const double c = number(r, "total_cost_usd"), tp = number(r, "tokens_per_s");
    if (std::isfinite(c) && std::isfinite(tp)) points.emplace_back(c, tp);
  }
  return points;
}

std::vector<std::string> key_columns(const Table& now, const Table& baseline) {
  std::vector<std::string> columns(plan_key_columns().begin(), plan_key_columns().end());
  for (const std::string& c : now.columns)
    if (c.rfind(kAxisPrefix, 0) == 0 &&
        std::find(baseline.columns.begin(), baseline.columns.end(), c) != baseline.columns.end())
      columns.push_back(c);
  // Island columns for every entry either file has (absent ones are skipped per row).
  const auto add_islands = [&](const Table& t) {
    for (const std::string& c : t.columns) {
      if (c.rfind("island", 0) != 0 || c.rfind("island_entries", 0) == 0) continue;
      for (const char* suffix : {"_gpu", "_gpus", "_count", "_gpus_per_node", "_spot"})
        if (c.size() > std::string_view(suffix).size() && c.ends_with(suffix) &&
            c.find('_') == c.size() - std::string_view(suffix).size() &&
            std::find(columns.begin(), columns.end(), c) == columns.end())
          columns.push_back(c);
    }
  };
  add_islands(now);
  add_islands(baseline);
  return columns;
}

std::optional<double> relative(double now, double before) {
  if (!std::isfinite(now) || !std::isfinite(before) || before == 0) return std::nullopt;
  return (now - before) / before;
}

}  // namespace

std::optional<double> MatchedCost::relative_change() const {
  if (!baseline_cost_usd) return std::nullopt;
  return relative(cost_usd, *baseline_cost_usd);
}

std::span<const std::string> plan_key_columns() {
  static const std::vector<std::string> kColumns = {
      "model_layers", "model_hidden", "model_seq_len", "global_batch", "micro_batch", "precision", "tp", "pp", "cp",
      "interleave", "sequence_parallel", "sharding", "shard_group", "recompute", "attention", "sync",
      "pp_across_islands", "diloco_inner_steps", "diloco_outer_bits", "island_entries", "islands", "total_gpus"};
  return kColumns;
}

std::string plan_key(const Row& row, std::span<const std::string> columns) {
  std::string key;
  for (const std::string& c : columns) {
    const auto it = row.find(c);
    if (it == row.end()) continue;
    key += c;
    key += '=';
    key += format_cell(it->second);
    key += '\x1f';   // unit separator: never part of a name or a number
  }
  return key;
}

std::optional<double> step_cost_at(std::span<const std::pair<double, double>> points, double tokens_per_s) {
  std::optional<double> best;
  for (const auto& [cost, throughput] : points)
    if (throughput >= tokens_per_s * (1 - 1e-9) && (!best || cost < *best)) best = cost;
  return best;
}

FrontDiff diff_fronts(const Table& now, const Table& baseline) {
  FrontDiff d;
  const std::vector<std::string> columns = key_columns(now, baseline);
  std::map<std::string, std::size_t> before;
  for (std::size_t j = 0; j < baseline.rows.size(); ++j) before.emplace(plan_key(baseline.rows[j], columns), j);
  std::map<std::string, std::size_t> after;
  for (std::size_t i = 0; i < now.rows.size(); ++i) {
    const std::string key = plan_key(now.rows[i], columns);
    after.emplace(key, i);
    const auto it = before.find(key);
    if (it == before.end()) d.joined.push_back(i);
    else d.kept.emplace_back(i, it->second);
  }
  for (std::size_t j = 0; j < baseline.rows.size(); ++j)
    if (!after.count(plan_key(baseline.rows[j], columns))) d.left.push_back(j);

  const std::vector<std::pair<double, double>> base = cost_throughput(baseline);
  for (std::size_t i = 0; i < now.rows.size(); ++i) {
    const double c = number(now.rows[i], "total_cost_usd"), t = number(now.rows[i], "tokens_per_s");
    if (!std::isfinite(c) || !std::isfinite(t)) continue;
    d.matched.push_back(MatchedCost{i, t, c, step_cost_at(base, t)});
  }
  const std::vector<std::pair<double, double>> cur = cost_throughput(now);
  if (!cur.empty() && !base.empty()) {
    const auto cheapest = [](const auto& v) { return std::min_element(v.begin(), v.end())->first; };
    const auto fastest = [](const auto& v) {
      return std::max_element(v.begin(), v.end(), [](auto a, auto b) { return a.second < b.second; })->second;
    };
    d.cheapest_cost_change = relative(cheapest(cur), cheapest(base));
    d.fastest_throughput_change = relative(fastest(cur), fastest(base));
  }
  return d;
}

}  // namespace shardmeter::results
