#include "results/report/report_model.hpp"

#include <cmath>

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "results/markup.hpp"
#include "results/front/objective.hpp"
#include "results/front/plan_labels.hpp"

namespace shardmeter::results {

namespace {

PlanRow plan_row(const Row& r, std::size_t index) {
  PlanRow p;
  p.row = index;
  p.gpu = gpu_label(r);
  p.islands = islands_label(r);
  p.island_count = integer(r, "islands");
  p.parallel = parallel_label(r);
  p.sharding = sharding_label(r);
  p.batch = batch_label(r);
  p.recompute = text(r, "recompute");
  p.sync = sync_label(r);
  p.cost_usd = number(r, "total_cost_usd");
  p.tokens_per_s = number(r, "tokens_per_s");
  p.usd_per_effective_million_tokens = r.count("cost_usd_per_effective_million_tokens") > 0
                                           ? number(r, "cost_usd_per_effective_million_tokens")
                                           : std::nan("");
  p.wall_clock_days = number(r, "wall_clock_days");
  p.mfu = number(r, "mfu");
  p.memory_headroom_gb = number(r, "memory_headroom_gb");
  p.bottleneck = text(r, "bottleneck");
  p.summary = plan_summary(r);
  return p;
}

std::vector<Fact> provenance_of(const RunInfo& info, std::size_t front_rows) {
  std::vector<Fact> facts;
  const auto add = [&](std::string label, std::string value) { facts.push_back({std::move(label), std::move(value)}); };
  add("scenario", info.scenario_name);
  add("tool version", "shardmeter " + info.version);
  add("method", info.method);
  add("seed", std::to_string(info.seed));
  add("threads", std::to_string(info.threads));
  add("search space", fmt::format("{} candidates", info.space_size));
  add("visited", fmt::format("{} candidates", info.visited));
  if (info.estimated) add("estimated", fmt::format("{} candidates (model calls)", *info.estimated));
  add("feasible", std::to_string(info.feasible));
  add("on the front", std::to_string(front_rows));
  add("elapsed", fmt::format("{:.2f} s", info.elapsed_s));
  if (info.elapsed_s > 0) add("rate", format_si(static_cast<double>(info.visited) / info.elapsed_s) + " candidates/s");
  add("complete", info.complete ? "yes" : "no: interrupted or stopped by a budget; the front may be incomplete");
  add("objectives", describe_objectives(info.objectives));
  std::string axes;
  for (const std::string& a : info.axes) axes += (axes.empty() ? "" : ", ") + a;
  add("search axes", axes.empty() ? "none" : axes);
  add("created", info.created);
  return facts;
}

}  // namespace

ReportModel build_report_model(const ReportInput& input) {
  const ResultFile& front = *input.front;
  ReportModel m;
  m.scenario_name = front.info.scenario_name;
  m.scenario_text = front.info.scenario_text;
  m.title = "ShardMeter report: " + (m.scenario_name.empty() ? std::string("unnamed scenario") : m.scenario_name);
  m.front_label = input.front_label;
  m.baseline_label = input.baseline_label;
  m.generator = input.generator;
  m.complete = front.info.complete;
  for (std::size_t i = 0; i < front.front.rows.size(); ++i) m.rows.push_back(plan_row(front.front.rows[i], i));
  m.picks = pick_front(front.front.rows);
  if (m.picks) {
    m.rows[m.picks->cheapest].picks.push_back("cheapest");
    m.rows[m.picks->knee].picks.push_back("knee");
    m.rows[m.picks->fastest].picks.push_back("fastest");
  }
  if (input.baseline != nullptr) {
    for (std::size_t i = 0; i < input.baseline->front.rows.size(); ++i)
      m.baseline_rows.push_back(plan_row(input.baseline->front.rows[i], i));
    m.diff = diff_fronts(front.front, input.baseline->front);
  }
  m.provenance = provenance_of(front.info, front.front.rows.size());
  std::vector<std::pair<std::string, std::uint64_t>> rejected(front.info.rejected.begin(), front.info.rejected.end());
  std::stable_sort(rejected.begin(), rejected.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [reason, count] : rejected) {
    const double share = front.info.visited > 0 ? static_cast<double>(count) / static_cast<double>(front.info.visited) : 0;
    m.rejections.push_back({reason, fmt::format("{} ({})", count, format_percent(share))});
  }
  std::set<std::string> gpus;
  for (const PlanRow& r : m.rows) gpus.insert(r.gpu);
  for (const PlanRow& r : m.baseline_rows) gpus.insert(r.gpu);
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

}  // namespace shardmeter::results
