#include "results/report/report_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "model/spec/enum_names.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "results/front/calibration_marks.hpp"
#include "results/front/objective.hpp"
#include "results/front/plan_labels.hpp"
#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

// Per (GPU type, the row's stack): results/front/calibration_marks.hpp.
bool uncalibrated(const RunInfo& info, const Row& row, const std::string& gpu) {
  return gpu_calibration(info, row, gpu) == RowCalibration::uncalibrated;
}

ReportRow report_row(const Row& r, std::size_t index, const PickAxes& axes, const RunInfo& info) {
  ReportRow p;
  p.record = decode_row(r, index);
  p.cost = p.record.metric(*axes.cost.metric);
  p.speed = p.record.metric(*axes.speed.metric);
  p.unpickable = unpickable(r, axes);
  for (const IslandEntryView& e : island_entries(p.record))
    p.uncalibrated = p.uncalibrated || uncalibrated(info, r, e.gpu);
  return p;
}

// One line per warning any row carries: which rows, and the warning's text (model/spec/estimate_warnings.hpp).
void add_row_warnings(ReportModel& m) {
  for (const model::WarningText& w : model::kWarningTexts) {
    std::vector<std::string> rows;
    for (const ReportRow& r : m.rows)
      if ((r.warning_bits() & model::bit(w.warning)) != 0) rows.push_back(std::to_string(row_number(r.row())));
    if (rows.empty()) continue;
    std::string list;
    for (std::size_t i = 0; i < rows.size(); ++i) list += (i == 0 ? "" : ", ") + rows[i];
    m.warnings.push_back(fmt::format("{} {} ({}): {}.", rows.size() == 1 ? "Row" : "Rows", list, w.name, w.text));
  }
}

std::vector<Fact> provenance_of(const RunInfo& info, std::size_t rows, bool sweep) {
  std::vector<Fact> facts;
  const auto add = [&](std::string label, std::string value) { facts.push_back({std::move(label), std::move(value)}); };
  add("scenario", info.scenario_name);
  add("tool version", "shardmeter " + info.version);
  add("method", info.method);
  if (!sweep) {
    add("seed", std::to_string(info.seed));
    add("threads", std::to_string(info.threads));
    add("search space", fmt::format("{} candidates", info.space_size));
    add("visited", fmt::format("{} candidates{}", info.visited,
                               info.counts_estimated ? " (estimated, as every count here: HyperLogLog, about 1 %)" : ""));
    if (info.estimated) add("estimated", fmt::format("{} candidates (model calls)", *info.estimated));
  }
  add("feasible", std::to_string(info.feasible));
  add(sweep ? "points" : "on the front", std::to_string(rows));
  add("elapsed", fmt::format("{:.2f} s", info.elapsed_s));
  if (info.elapsed_s > 0 && !sweep)
    add("rate", format_si(static_cast<double>(info.visited) / info.elapsed_s) + " candidates/s");
  add("complete", info.complete ? "yes" : "no: interrupted or stopped by a budget; the front may be incomplete");
  add("objectives", info.objectives.empty() ? "none recorded" : describe_objectives(info.objectives));
  std::string axes;
  for (const std::string& a : info.axes) axes += (axes.empty() ? "" : ", ") + a;
  add(sweep ? "sweep axes" : "search axes", axes.empty() ? "none" : axes);
  add("created", info.created);
  return facts;
}

// How row `to` compares with row `from`, called `from_name`:
// "+1.0% cost and 2.00x the speed of the cheapest plan, row 1 (1.03M against 515k tokens/s)".
std::string trade(const ReportModel& m, const ReportRow& from, const ReportRow& to, const std::string& from_name) {
  const double ratio = m.axes.goodness(to.speed) / m.axes.goodness(from.speed);
  return fmt::format("{} cost and {:.2f}x the speed of {} ({} against {})",
                     format_change((to.cost - from.cost) / from.cost), ratio, from_name, speed_text(m.axes, to.speed),
                     speed_text(m.axes, from.speed));
}

std::string recommendation_of(const ReportModel& m) {
  if (!m.picks) {
    if (m.rows.empty()) return "There is nothing to choose: the front is empty, no plan in the search space was feasible.";
    return "There is nothing to choose: no row is feasible with a finite cost and speed.";
  }
  const FrontPicks& p = *m.picks;
  const ReportRow &c = m.rows[p.cheapest], &k = m.rows[p.knee], &f = m.rows[p.fastest];
  std::string out;
  if (p.cheapest == p.fastest) {
    out = fmt::format("Choose row {}: it is both the cheapest ({}) and the fastest ({}) plan{}.", row_number(c.row()),
                      cost_text(m.axes, c.cost), speed_text(m.axes, c.speed),
                      p.pickable == 1 ? ", the only one that can be chosen" : "");
  } else if (p.knee == p.cheapest) {
    out = fmt::format("Choose row {}, the cheapest plan ({}, {}): every faster plan adds more cost than speed in "
                      "relative terms; the fastest, row {}, has {}.",
                      row_number(c.row()), cost_text(m.axes, c.cost), speed_text(m.axes, c.speed), row_number(f.row()),
                      trade(m, c, f, "the cheapest"));
  } else {
    out = fmt::format("Choose row {}, the knee: {}", row_number(k.row()),
                      trade(m, c, k, fmt::format("the cheapest plan, row {}", row_number(c.row()))));
    out += p.knee == p.fastest ? "; no plan is faster."
                               : fmt::format("; the fastest, row {}, has {}.", row_number(f.row()),
                                             trade(m, k, f, "the knee"));
  }
  const ReportRow& chosen = m.rows[p.knee];
  if (chosen.uncalibrated)
    out += fmt::format(" Its GPU type ({}) is uncalibrated: its figures are extrapolated, not fitted to published runs.",
                       chosen.gpu());
  return out;
}

// The distinct values of `value` over the rows, in order of first appearance, joined by ", ".
template <class F>
std::string distinct(const std::vector<ReportRow>& rows, F value) {
  std::vector<std::string> values;
  for (const ReportRow& r : rows) {
    const std::string v = value(r.record);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

std::string model_text(const PlanRecord& r) {
  const model::ModelSpec& m = r.scenario.model;
  std::string out = fmt::format("{} layers, hidden {}", m.layers, m.hidden);
  // Files before schema_version 3 hold only the layers, hidden size and sequence (the decoder lists the rest missing).
  if (std::find(r.missing.begin(), r.missing.end(), "model_heads") == r.missing.end())
    out += fmt::format(", {} heads ({} KV), FFN {} ({}), vocab {}", m.heads, m.kv_heads, m.ffn_hidden,
                       model::enum_name(m.ffn_type), m.vocab);
  return out + fmt::format(", sequence {} tokens", m.seq_len);
}

std::vector<Fact> job_of(const ResultFile& file, const ReportModel& m) {
  std::vector<Fact> facts;
  if (m.rows.empty()) return facts;
  double lo = m.rows.front().record.scenario.training.tokens, hi = lo;
  for (const ReportRow& r : m.rows) {
    lo = std::min(lo, r.record.scenario.training.tokens);
    hi = std::max(hi, r.record.scenario.training.tokens);
  }
  facts.push_back({"token budget", lo == hi ? format_si(lo) + " tokens"
                                            : format_si(lo) + " to " + format_si(hi) + " tokens (a searched axis)"});
  facts.push_back({"precision", distinct(m.rows, [](const PlanRecord& r) {
                     return std::string(model::enum_name(r.scenario.training.precision));
                   })});
  facts.push_back({"model", model_text(m.rows.front().record)});
  facts.push_back({"picks trade", fmt::format("{} ({}) against {} ({})", m.axes.cost.name(),
                                              to_string(m.axes.cost.direction), m.axes.speed.name(),
                                              to_string(m.axes.speed.direction))});
  // Per GPU type, in order of first appearance: calibrated on its rows' stacks, uncalibrated on all of them, or
  // both (B200 is fitted for megatron_te only: a front over plan.stack has both kinds of rows).
  std::vector<std::string> order;
  std::map<std::string, std::pair<int, int>> counts;   // type -> (calibrated rows, uncalibrated rows)
  for (const ReportRow& row : m.rows) {
    const Row& r = file.front.rows[row.row()];
    for (const IslandEntryView& e : island_entries(row.record)) {
      if (!counts.count(e.gpu)) order.push_back(e.gpu);
      auto& [good, bad] = counts[e.gpu];
      ++(uncalibrated(file.info, r, e.gpu) ? bad : good);
    }
  }
  std::string gpus;
  for (const std::string& g : order) {
    const auto [good, bad] = counts[g];
    std::string on;   // the stacks a mixed type is uncalibrated on, from "gpu:stack"
    if (file.info.uncalibrated_gpu_stacks)
      for (const std::string& pair : *file.info.uncalibrated_gpu_stacks)
        if (pair.starts_with(g + ":")) on += (on.empty() ? "" : ", ") + pair.substr(g.size() + 1);
    const std::string status =
        !file.info.uncalibrated_gpus ? "calibration status unknown (file before schema_version 3)"
        : bad == 0                   ? "calibrated against published runs"
        : good == 0                  ? "UNCALIBRATED: efficiency constants extrapolated from matmul benchmarks"
                                     : fmt::format("UNCALIBRATED on {} ({} of its {} rows): efficiency constants "
                                                   "extrapolated from matmul benchmarks; calibrated on the other rows",
                                                   on, bad, good + bad);
    gpus += (gpus.empty() ? "" : "; ") + g + " " + status;
  }
  facts.push_back({"GPU types", gpus});
  return facts;
}

// Per GPU type: the price, usable memory and node network a file's rows show (first occurrence).
struct GpuFacts {
  double price = 0, capacity_gb = 0, network_gbps = 0;
};
std::map<std::string, GpuFacts> gpu_facts(const std::vector<ReportRow>& rows) {
  std::map<std::string, GpuFacts> out;
  for (const ReportRow& r : rows) {
    const auto entries = island_entries(r.record);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (out.count(entries[i].gpu) != 0) continue;
      GpuFacts f;
      f.price = entries[i].price_usd_per_gpu_hour;
      // Through the column table's getters: the values the file holds.
      f.capacity_gb = cell_number(column_value(r.record, fmt::format("island{}_memory_capacity_gb", i)));
      f.network_gbps = cell_number(column_value(r.record, fmt::format("island{}_node_network_gbps", i)));
      out.emplace(entries[i].gpu, f);
    }
  }
  return out;
}

std::vector<std::string> differences(const ResultFile& now, const ResultFile& before, const ReportModel& m) {
  std::vector<std::string> out;
  if (now.info.scenario_name != before.info.scenario_name) {
    out.push_back(fmt::format("it is another scenario, {} (this report: {}); compared on request (--force), so plans "
                              "that joined or left reflect different questions, not changes",
                              before.info.scenario_name, now.info.scenario_name));
  } else if (now.info.scenario_text != before.info.scenario_text) {
    std::istringstream a(now.info.scenario_text), b(before.info.scenario_text);
    std::string la, lb;
    int changed = 0;
    while (true) {
      const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
      if (!ga && !gb) break;
      if (!ga || !gb || la != lb) ++changed;
    }
    out.push_back(fmt::format("the scenario file changed ({} line{} differ)", changed, changed == 1 ? "" : "s"));
  }
  if (describe_objectives(now.info.objectives) != describe_objectives(before.info.objectives))
    out.push_back(fmt::format("it was searched for other objectives ({}; this report: {})",
                              describe_objectives(before.info.objectives), describe_objectives(now.info.objectives)));
  const auto gn = gpu_facts(m.rows), gb = gpu_facts(m.baseline_rows);
  for (const auto& [gpu, f] : gn) {
    const auto it = gb.find(gpu);
    if (it == gb.end()) continue;
    if (f.price != it->second.price)
      out.push_back(fmt::format("{} costs {} per GPU-hour, {} in the baseline (prices)", gpu,
                                format_usd(f.price, 4), format_usd(it->second.price, 4)));
    if (f.capacity_gb != it->second.capacity_gb || f.network_gbps != it->second.network_gbps)
      out.push_back(fmt::format("{}'s catalog entry changed: usable memory {} GB (baseline {}), node network {} Gbit/s "
                                "(baseline {})", gpu, format_fixed(f.capacity_gb, 1),
                                format_fixed(it->second.capacity_gb, 1), format_si(f.network_gbps, 4),
                                format_si(it->second.network_gbps, 4)));
  }
  if ((now.info.uncalibrated_gpus && before.info.uncalibrated_gpus &&
       *now.info.uncalibrated_gpus != *before.info.uncalibrated_gpus) ||
      (now.info.uncalibrated_gpu_stacks && before.info.uncalibrated_gpu_stacks &&
       *now.info.uncalibrated_gpu_stacks != *before.info.uncalibrated_gpu_stacks))
    out.push_back("the GPU types' calibration status changed (catalog)");
  if (now.info.version != before.info.version)
    out.push_back(fmt::format("it was written by ShardMeter {} (this report: {}): the model may have changed",
                              before.info.version, now.info.version));
  if (out.empty())
    out.push_back(fmt::format("same scenario, prices, catalog and version: the fronts differ only through the search "
                              "({} seed {} against {} seed {})", now.info.method, now.info.seed, before.info.method,
                              before.info.seed));
  return out;
}

std::string title_of(const PickAxes& axes, bool cost) {
  if (cost) return axes.cost.name() == "total_cost_usd" ? "cost (USD)" : fmt::format("{} ({})", axes.cost.name(), axes.cost.metric->unit);
  if (axes.speed.name() == "tokens_per_s") return "throughput (tokens/s)";
  if (axes.speed.name() == "effective_tokens_per_s") return "effective throughput (tokens/s)";
  return fmt::format("{} ({})", axes.speed.name(), axes.speed.metric->unit);
}

}  // namespace

std::string speed_text(const PickAxes& axes, double value) {
  if (axes.speed.name() == "tokens_per_s") return format_si(value) + " tokens/s";
  if (axes.speed.name() == "effective_tokens_per_s") return format_si(value) + " effective tokens/s";
  if (axes.speed.name() == "wall_clock_days") return format_fixed(value, 1) + " days";
  return format_si(value) + " " + std::string(axes.speed.metric->unit);
}

std::string cost_text(const PickAxes& axes, double value) {
  const std::string_view unit = axes.cost.metric->unit;
  if (unit == "USD") return format_usd(value);
  return format_usd(value) + " " + std::string(unit.starts_with("USD ") ? unit.substr(4) : unit);
}

ReportModel build_report_model(const ReportInput& input) {
  const ResultFile& front = *input.front;
  ReportModel m;
  m.scenario_name = front.info.scenario_name;
  m.scenario_text = front.info.scenario_text;
  m.sweep = front.info.method == "sweep";
  const std::string name = m.scenario_name.empty() ? std::string("unnamed scenario") : m.scenario_name;
  m.title = m.sweep ? "ShardMeter report: sweep of " + name : "ShardMeter report: " + name;
  m.front_label = input.front_label;
  m.baseline_label = input.baseline_label;
  m.generator = input.generator;
  m.complete = front.info.complete;
  m.axes = pick_axes(front.info.objectives);
  m.cost_title = title_of(m.axes, true);
  m.speed_title = title_of(m.axes, false);
  for (std::size_t i = 0; i < front.front.rows.size(); ++i)
    m.rows.push_back(report_row(front.front.rows[i], i, m.axes, front.info));
  const std::size_t feasible = static_cast<std::size_t>(
      std::count_if(m.rows.begin(), m.rows.end(), [](const ReportRow& r) { return !r.unpickable; }));
  m.what = m.sweep ? fmt::format("{} sweep points along {}, {} of them feasible", m.rows.size(),
                                 front.info.axes.empty() ? std::string("no axis") : front.info.axes.back(), feasible)
                   : fmt::format("{} plans on the Pareto front ({})", m.rows.size(),
                                 front.info.objectives.empty() ? "cost and throughput"
                                                               : describe_objectives(front.info.objectives));
  m.picks = pick_front(front.front.rows, m.axes);
  if (m.picks) {
    m.rows[m.picks->cheapest].picks.push_back("cheapest");
    m.rows[m.picks->knee].picks.push_back("knee");
    m.rows[m.picks->fastest].picks.push_back("fastest");
  }
  m.recommendation = recommendation_of(m);
  m.job = job_of(front, m);
  if (!m.complete) m.warnings.push_back("This search did not complete (interrupted or stopped by a budget): the front may miss plans.");
  if (m.picks)
    for (const std::size_t i : {m.picks->cheapest, m.picks->knee, m.picks->fastest})
      if (m.rows[i].uncalibrated) {
        m.warnings.push_back(fmt::format("Row {} ({}) runs on an uncalibrated GPU type: its figures are extrapolated "
                                         "from matmul benchmarks, not fitted to published training runs.",
                                         row_number(i), m.rows[i].gpu()));
        break;
      }
  add_row_warnings(m);
  if (m.sweep && feasible < m.rows.size())
    m.warnings.push_back(fmt::format("{} of the {} sweep points are not feasible; they are listed but never picked.",
                                     m.rows.size() - feasible, m.rows.size()));
  if (input.baseline != nullptr) {
    for (std::size_t i = 0; i < input.baseline->front.rows.size(); ++i)
      m.baseline_rows.push_back(report_row(input.baseline->front.rows[i], i, m.axes, input.baseline->info));
    m.diff = diff_fronts(front.front, input.baseline->front, m.axes);
    m.baseline_of_other_scenario = front.info.scenario_name != input.baseline->info.scenario_name;
    m.baseline_differences = differences(front, *input.baseline, m);
  }
  m.provenance = provenance_of(front.info, front.front.rows.size(), m.sweep);
  std::vector<std::pair<std::string, std::uint64_t>> rejected(front.info.rejected.begin(), front.info.rejected.end());
  std::stable_sort(rejected.begin(), rejected.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [reason, count] : rejected) {
    const double share = front.info.visited > 0 ? static_cast<double>(count) / static_cast<double>(front.info.visited) : 0;
    m.rejections.push_back({reason, fmt::format("{} ({})", count, format_percent(share))});
  }
  std::set<std::string> gpus;
  for (const ReportRow& r : m.rows) gpus.insert(r.gpu());
  for (const ReportRow& r : m.baseline_rows) gpus.insert(r.gpu());
  m.gpu_types.assign(gpus.begin(), gpus.end());
  return m;
}

std::string gpu_color(const ReportModel& model, const std::string& gpu) {
  // Okabe & Ito, "Color Universal Design" (2008), without yellow (too light on white) and black (used for text).
  // Then two of Paul Tol's "muted" colours.
  static constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                          "#D55E00", "#56B4E9", "#882255", "#44AA99"};
  const auto it = std::find(model.gpu_types.begin(), model.gpu_types.end(), gpu);
  const std::size_t i = it == model.gpu_types.end() ? 0 : static_cast<std::size_t>(it - model.gpu_types.begin());
  return i < kPalette.size() ? kPalette[i] : std::string("#666666");
}

std::string warning_names(std::uint32_t bits) {
  std::string out;
  for (const model::WarningText& w : model::kWarningTexts)
    if ((bits & model::bit(w.warning)) != 0) out += (out.empty() ? "" : ", ") + std::string(w.name);
  return out;
}

}  // namespace shardmeter::results

namespace shardmeter::results {

std::string ReportRow::gpu() const { return gpu_label(record); }
std::string ReportRow::islands() const { return islands_label(record); }
std::string ReportRow::parallel() const { return parallel_label(record); }
std::string ReportRow::sharding() const { return sharding_label(record); }
std::string ReportRow::batch() const { return batch_label(record); }
std::string ReportRow::recompute() const { return std::string(model::enum_name(record.scenario.plan.recompute)); }
std::string ReportRow::sync() const { return sync_label(record); }
std::string ReportRow::bottleneck() const { return std::string(model::enum_name(record.estimate.bottleneck)); }
std::string ReportRow::summary() const { return plan_summary(record); }

std::uint32_t ReportRow::warning_bits() const {
  const double bits = record.metric(model::metric("warning_bits"));
  return bits > 0 && bits < 4294967296.0 ? static_cast<std::uint32_t>(bits) : 0u;
}

}  // namespace shardmeter::results
