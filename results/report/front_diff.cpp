#include "results/report/front_diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "results/files/row_layout.hpp"

namespace shardmeter::results {

namespace {

// (cost, goodness) of the rows that can be picked.
std::vector<std::pair<double, double>> cost_goodness(const Table& t, const PickAxes& axes) {
  std::vector<std::pair<double, double>> points;
  for (const Row& r : t.rows)
    if (!unpickable(r, axes))
      points.emplace_back(number(r, axes.cost.name()), axes.goodness(number(r, axes.speed.name())));
  return points;
}

bool has_column(const Table& t, const std::string& c) {
  return std::find(t.columns.begin(), t.columns.end(), c) != t.columns.end();
}

std::vector<std::string> key_columns(const Table& now, const Table& baseline) {
  std::vector<std::string> columns;
  for (const std::string& c : plan_key_columns())
    if (has_column(now, c) && has_column(baseline, c)) columns.push_back(c);
  for (const std::string& c : now.columns)
    if (c.rfind(kAxisPrefix, 0) == 0 && has_column(baseline, c)) columns.push_back(c);
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
      "pp_across_islands", "diloco_inner_steps", "diloco_outer_bits", "island_entries", "islands", "total_gpus",
      "model_heads", "model_kv_heads", "model_ffn_hidden", "model_vocab", "overlap_grad_reduce", "overlap_param_gather",
      "tp_comm_overlap", "diloco_fragments", "diloco_overlap_steps"};
  return kColumns;
}

std::string plan_key(const Row& row, std::span<const std::string> columns) {
  std::string key;
  for (const std::string& c : columns) {
    const auto it = row.find(c);
    if (it == row.end()) continue;
    key += c;
    key += '=';
    const bool* b = std::get_if<bool>(&it->second);
    key += b != nullptr ? (*b ? "1" : "0") : format_cell(it->second);
    key += '\x1f';   // unit separator: never part of a name or a number
  }
  return key;
}

std::optional<double> step_cost_at(std::span<const std::pair<double, double>> points, double goodness) {
  std::optional<double> best;
  for (const auto& [cost, g] : points)
    if (g >= goodness * (1 - 1e-9) && (!best || cost < *best)) best = cost;
  return best;
}

FrontDiff diff_fronts(const Table& now, const Table& baseline, const PickAxes& axes) {
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

  const std::vector<std::pair<double, double>> base = cost_goodness(baseline, axes);
  for (std::size_t i = 0; i < now.rows.size(); ++i) {
    if (unpickable(now.rows[i], axes)) continue;
    const double c = number(now.rows[i], axes.cost.name()), s = number(now.rows[i], axes.speed.name());
    d.matched.push_back(MatchedCost{i, s, c, step_cost_at(base, axes.goodness(s))});
  }
  const std::vector<std::pair<double, double>> cur = cost_goodness(now, axes);
  if (!cur.empty() && !base.empty()) {
    const auto cheapest = [](const auto& v) { return std::min_element(v.begin(), v.end())->first; };
    const auto fastest = [](const auto& v) {
      return std::max_element(v.begin(), v.end(), [](auto a, auto b) { return a.second < b.second; })->second;
    };
    d.cheapest_cost_change = relative(cheapest(cur), cheapest(base));
    // Back from goodness to the speed's own value (1 / goodness for days), so "-10 %" reads as 10 % fewer days.
    const auto value = [&](double g) { return axes.speed.direction == model::Direction::maximize ? g : 1.0 / g; };
    d.fastest_speed_change = relative(value(fastest(cur)), value(fastest(base)));
  }
  return d;
}

}  // namespace shardmeter::results
