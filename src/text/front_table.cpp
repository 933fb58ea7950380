#include "src/text/front_table.hpp"
#include "model/spec/enum_names.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/spec/estimate_warnings.hpp"
#include "model/spec/metrics.hpp"
#include "model/moe/moe_accuracy.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/spec/units.hpp"
#include "results/front/calibration_marks.hpp"
#include "results/front/front_picks.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/text/text_format.hpp"
#include "src/text/text_table.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

const m::IslandSpec& island(const m::Scenario& s, int i) { return s.cluster.islands[static_cast<std::size_t>(i)]; }

// A type uncalibrated on the row's stack carries a '*' (the search prints the legend under the table).
std::string gpu_types(const m::Scenario& s, std::span<const std::string> uncalibrated_pairs) {
  std::string text;
  for (const std::string& n : gpu_types_of(s)) {
    const std::string pair = results::gpu_stack_key(n, m::enum_name(s.plan.stack));
    text += (text.empty() ? "" : "+") + n +
            (std::find(uncalibrated_pairs.begin(), uncalibrated_pairs.end(), pair) != uncalibrated_pairs.end() ? "*" : "");
  }
  return text;
}

// "2 x 256", or "1 x 512 + 2 x 128" for several island entries; " spot" after an island bought on spot.
std::string islands(const m::Scenario& s) {
  std::string text;
  for (int i = 0; i < s.cluster.island_entries; ++i)
    text += fmt::format("{}{} x {}{}", i > 0 ? " + " : "", island(s, i).count, island(s, i).gpus,
                        island(s, i).spot ? " spot" : "");
  return text;
}

std::string degrees(const m::PlanSpec& p) {
  const std::string pp = p.interleave > 1 ? fmt::format("{}v{}", p.pp, p.interleave) : std::to_string(p.pp);
  return fmt::format("{}/{}/{}", p.tp, pp, p.cp);
}

// An MoE row's expert grid: "8/1", "64/1 deepep overlap" (plan.ep / plan.etp, the dispatcher when not alltoall,
// the EP overlap when on).
std::string experts(const m::Scenario& s) {
  if (!m::is_moe(s.model)) return "-";
  const m::PlanSpec& p = s.plan;
  std::string text = fmt::format("{}/{}", p.ep, p.etp);
  if (p.ep_dispatcher != m::EpDispatcher::alltoall) text += " " + std::string(model::enum_name(p.ep_dispatcher));
  if (p.ep_overlap) text += " overlap";
  return text;
}

std::string sharding(const m::PlanSpec& p) {
  const std::string name(model::enum_name(p.sharding));
  return p.sharding == m::Sharding::hsdp && p.shard_group > 0 ? fmt::format("{}:{}", name, p.shard_group) : name;
}

// "diloco H100 8b", with "P8 t1" for Streaming DiLoCo's fragments and overlap.
std::string sync(const m::PlanSpec& p) {
  if (p.sync != m::SyncMode::diloco) return "sync";
  std::string text = fmt::format("diloco H{}", p.diloco.inner_steps);
  if (p.diloco.outer_bits < 32) text += fmt::format(" {}b", p.diloco.outer_bits);
  if (p.diloco.fragments > 1) text += fmt::format(" P{}", p.diloco.fragments);
  if (p.diloco.overlap_steps > 0) text += fmt::format(" t{}", p.diloco.overlap_steps);
  return text;
}

std::string metric_text(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (std::fabs(v) >= 1e4) return count_si(v);
  return fmt::format("{:.4g}", v);
}

// Days, or hours below two days.
std::string wall_clock(double s) {
  if (!std::isfinite(s)) return "n/a";
  const double days = s / m::kSecondsPerDay;
  return days >= 2 ? fmt::format("{:.1f} d", days) : fmt::format("{:.1f} h", s / 3600);
}

bool shown(std::string_view metric) {
  return metric == "total_cost_usd" || metric == "tokens_per_s" || metric == "wall_clock_days" || metric == "mfu";
}

}  // namespace

std::string format_front_table(std::span<const results::PlanPoint> front, const std::vector<model::Objective>& objectives,
                               std::span<const std::string> uncalibrated_gpu_stacks) {
  constexpr Align L = Align::left, R = Align::right;
  std::vector<TextColumn> cols = {{"#", R, {}},         {"GPU", L, {}},        {"islands x GPUs", L, {}},
                                  {"tp/pp/cp", L, {}},  {"sharding", L, {}},   {"stack", L, {}},
                                  {"micro/global", L, {}},
                                  {"recompute", L, {}}, {"sync", L, {}},       {"cost", R, {}},
                                  {"tokens/s", R, {}},  {"wall-clock", R, {}}, {"MFU", R, {}},
                                  {"bottleneck", L, {}}};
  // A front with MoE plans shows each row's expert grid after its tp/pp/cp (issue 10: plan.ep as an axis).
  const bool moe = std::any_of(front.begin(), front.end(), [](const results::PlanPoint& p) {
    return m::is_moe(p.scenario.model);
  });
  if (moe) cols.insert(cols.begin() + 4, TextColumn{"ep/etp", L, {}});
  std::vector<const m::Metric*> extra;
  // A front with DiLoCo plans also shows what a loss-equivalent token costs (docs/model.md §9.4).
  const bool diloco = std::any_of(front.begin(), front.end(), [](const results::PlanPoint& p) {
    return p.scenario.plan.sync == m::SyncMode::diloco;
  });
  if (diloco)
    for (const std::string_view name : {"effective_tokens_per_s", "cost_usd_per_effective_million_tokens"})
      if (std::none_of(objectives.begin(), objectives.end(), [&](const model::Objective& o) { return o.name() == name; })) {
        extra.push_back(m::find_metric(name));
        cols.push_back({std::string(name), R, {}});
      }
  for (const model::Objective& o : objectives)
    if (!shown(o.name())) {
      extra.push_back(o.metric);
      cols.push_back({std::string(o.name()), R, {}});
    }

  // The picks the report and export make, by the same definition (results/front/front_picks.hpp).
  const results::PickAxes axes = results::pick_axes(objectives);
  std::vector<results::PickPoint> points;
  for (const results::PlanPoint& p : front)
    points.push_back({axes.cost.value(p.estimate), axes.speed.value(p.estimate), p.estimate.feasible});
  const auto picks = results::pick_points(points, axes);
  cols.push_back({"pick", L, {}});

  for (std::size_t r = 0; r < front.size(); ++r) {
    const m::Scenario& s = front[r].scenario;
    const m::Estimate& e = front[r].estimate;
    std::vector<std::string> cells = {
        // '!': the estimate carries a warning (an MoE accuracy warning, or a model beyond its fitted data: batch,
        // DiLoCo); the legend under the table names it.
        std::to_string(r + 1) + (e.warnings != 0 ? "!" : ""),
        gpu_types(s, uncalibrated_gpu_stacks),
        islands(s),
        degrees(s.plan),
        sharding(s.plan),
        std::string(model::enum_name(s.plan.stack)),
        fmt::format("{}/{}", s.training.micro_batch, s.training.global_batch),
        std::string(model::enum_name(s.plan.recompute)),
        sync(s.plan),
        usd(e.total_cost_usd),
        grouped(e.tokens_per_s),
        wall_clock(e.wall_clock_s),
        // An fp8 plan's MFU is over the fp8 peak (docs/model.md §1.4): say so where plans of both precisions mix.
        percent(e.mfu) + (e.mfu_peak_precision == m::Precision::fp8 ? " fp8" : ""),
        std::string(model::enum_name(e.bottleneck))};
    if (moe) cells.insert(cells.begin() + 4, experts(s));
    for (std::size_t c = 0; c < cells.size(); ++c) cols[c].cells.push_back(cells[c]);
    for (std::size_t x = 0; x < extra.size(); ++x) cols[cells.size() + x].cells.push_back(metric_text(extra[x]->get(e)));
    std::string pick;
    if (picks)
      for (const char* name : {"cheapest", "knee", "fastest"})
        if (*results::pick_by_name(*picks, name) == r) pick += (pick.empty() ? "" : ", ") + std::string(name);
    cols.back().cells.push_back(pick);
  }
  return render_table(cols);
}

std::string format_front_warnings(std::span<const results::PlanPoint> front) {
  std::uint32_t seen = 0;
  for (const results::PlanPoint& p : front) seen |= p.estimate.warnings;
  std::string text;
  for (const m::WarningText& w : m::kWarningTexts)
    if ((seen & m::bit(w.warning)) != 0) text += fmt::format("! {}: {}\n", w.name, w.text);
  return text;
}

}  // namespace shardmeter::cli
