#include "src/sweep/sweep.hpp"
#include "src/scenario/scenario_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

#include "model/job/evaluate.hpp"
#include "search/search.hpp"
#include "search/space.hpp"
#include "src/planning/search_section.hpp"
#include "src/planning/search_space.hpp"
#include "src/scenario/scenario_document.hpp"
#include "src/text/text_format.hpp"

namespace shardmeter::cli {

namespace {

// The series running along `axis`: one per value of the other axis (one series for a 1-axis sweep).
std::vector<SweepSeries> series_along(const Sweep& sweep, int axis) {
  const int axes = static_cast<int>(sweep.axes.size());
  const int other = axes == 2 ? 1 - axis : -1;
  const std::size_t groups = other < 0 ? 1 : sweep.axes[static_cast<std::size_t>(other)].values.size();
  std::vector<SweepSeries> out(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    out[g].axis = axis;
    out[g].fixed = series_fixed(sweep.axes, axis, g);
  }
  // Points are stored first axis outermost; walking them in order visits each series in its axis order.
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    const SweepPoint& p = sweep.points[i];
    const std::size_t g = other < 0 ? 0 : p.values[static_cast<std::size_t>(other)];
    out[g].points.push_back(i);
    if (p.estimate.feasible && !p.no_plan) out[g].feasible.push_back(i);
  }
  return out;
}

SeriesPoints series_points(const Sweep& sweep, const SweepSeries& s) {
  return SeriesPoints{
      s.feasible.size(),
      [&sweep, &s](std::size_t i) { return sweep.points[s.feasible[i]].labels[static_cast<std::size_t>(s.axis)]; },
      [&sweep, &s](std::size_t i) { return sweep.points[s.feasible[i]].estimate; }};
}

// The part of the step whose share grows most from `before` to `after` (falling: whose share falls most): what
// drives a knee or a transition. comm_only: communication parts only (a transition is about exposed communication).
// Inside-island traffic (TP, PP, DP) and WAN traffic are separate parts, so a transition says which of the two
// crosses; a falling crossing names the part that shrank (issue 31: more WAN bandwidth shrinks the WAN share while
// the TP share grows a little in the shorter step, and the crossing used to be blamed on TP).
std::string driving_component(const model::Estimate& before, const model::Estimate& after, bool comm_only,
                              bool falling = false) {
  struct Part {
    const char* name;
    double (*get)(const model::TimeBreakdown&);
    bool comm;
  };
  static constexpr Part kParts[] = {
      {"compute", [](const model::TimeBreakdown& t) { return t.compute_s + t.recompute_s; }, false},
      {"memory-bound kernels", [](const model::TimeBreakdown& t) { return t.memory_bound_s + t.optimizer_s; }, false},
      {"TP communication (inside islands)", [](const model::TimeBreakdown& t) { return t.tp_comm_s; }, true},
      {"PP communication (inside islands)", [](const model::TimeBreakdown& t) { return t.pp_comm_s; }, true},
      {"pipeline bubble", [](const model::TimeBreakdown& t) { return t.bubble_s; }, false},
      {"DP communication (inside islands)", [](const model::TimeBreakdown& t) { return t.dp_comm_s; }, true},
      {"WAN (across islands)", [](const model::TimeBreakdown& t) { return t.wan_s; }, true},
      {"straggler wait", [](const model::TimeBreakdown& t) { return t.straggler_s; }, false},
  };
  const auto share = [](const Part& p, const model::Estimate& e) {
    return e.step_time_s > 0 ? p.get(e.time) / e.step_time_s : 0.0;
  };
  const Part* best = nullptr;
  double growth = 0;
  for (const Part& p : kParts) {
    if (comm_only && !p.comm) continue;
    const double g = falling ? share(p, before) - share(p, after) : share(p, after) - share(p, before);
    if (best == nullptr || g > growth) best = &p, growth = g;
  }
  // Less than half a percentage point is no driver: the step keeps its shape (e.g. a re-planned layout).
  if (best == nullptr || growth < 0.005) return "";
  return fmt::format("{} {} -> {} of the step", best->name, percent(share(*best, before)), percent(share(*best, after)));
}

// The best plan of the scenario's search space at one sweep point (the swept keys set to `at`), for the
// search's first objective (ties: the second); found = false when no plan of the space is feasible.
struct BestPlan {
  bool found = false;
  model::Scenario scenario;
  model::Estimate estimate;
};

BestPlan best_plan_at(const LoadedScenario& base, const Catalog& catalog, const std::vector<AxisSpec>& swept,
                        const std::vector<Override>& at) {
  LoadedScenario point;
  point.name = base.name;
  point.doc = scenario_document_from_text(base.doc.path, effective_text(base.doc));
  for (const Override& o : at) apply_override(point.doc, o);
  point.scenario = parse_scenario(point.doc, catalog);
  SearchSection section = read_search_section(point.doc, catalog, point.scenario);
  // The swept keys stay as swept; sweeping an island size also holds the other island-size keys (count, nodes,
  // gpus), so each point is the job of that size with its best layout, not a differently sized job.
  const bool sizes = std::any_of(swept.begin(), swept.end(), [](const AxisSpec& s) { return is_island_size_key(s.key); });
  std::erase_if(section.axes, [&](const AxisSpec& a) {
    return (sizes && is_island_size_key(a.key)) ||
           std::any_of(swept.begin(), swept.end(), [&](const AxisSpec& s) { return s.key == a.key; });
  });
  BestPlan best;
  if (section.axes.empty()) return best;
  const search::Space space = build_search_space(point, section, catalog);
  const search::Goal goal = make_goal(section);
  search::SearchOptions options;
  options.seed = 1;
  const search::SearchResult result = search::search(space, goal, options);
  const auto better = [&](const search::FrontPoint& a, const search::FrontPoint& b) {
    for (std::size_t k = 0; k < result.objectives.size(); ++k) {
      const bool min = result.objectives[k].direction == model::Direction::minimize;
      if (a.objectives[k] != b.objectives[k]) return min ? a.objectives[k] < b.objectives[k] : a.objectives[k] > b.objectives[k];
    }
    return false;
  };
  const search::FrontPoint* top = nullptr;
  for (const search::FrontPoint& f : result.front)
    if (top == nullptr || better(f, *top)) top = &f;
  if (top != nullptr) best = BestPlan{true, top->scenario, top->estimate};
  return best;
}

void check_axis_count(const std::vector<AxisSpec>& axes) {
  if (axes.empty()) throw InputError("shardmeter sweep: give one or two --axis KEY=VALUES (see shardmeter sweep --help)");
  if (axes.size() > static_cast<std::size_t>(kMaxSweepAxes))
    throw InputError(fmt::format("shardmeter sweep: {} axes given; a sweep has one or two", axes.size()));
}

std::string number_text(double v) {
  if (std::fabs(v) >= 1000) return grouped(v);
  return fmt::format("{:.3g}", v);
}

}  // namespace

bool is_island_size_key(const std::string& key) {
  static const std::regex pattern(R"(cluster\.islands\.[0-9]+\.(gpus|nodes|count))");
  return std::regex_match(key, pattern);
}

std::uint64_t sweep_point_count(const std::vector<AxisSpec>& axes) {
  std::uint64_t points = 1;
  for (const AxisSpec& a : axes) points *= std::max<std::uint64_t>(a.values.size(), 1);   // at most 4096^2
  return points;
}

std::string sweep_shape(const std::vector<AxisSpec>& axes) {
  return axes.size() == 2 ? fmt::format("{} x {}", axes[0].values.size(), axes[1].values.size())
                          : fmt::format("{} values", axes.empty() ? 0 : axes[0].values.size());
}

int sweep_knee_axis(const std::vector<AxisSpec>& axes) {
  for (int k = static_cast<int>(axes.size()) - 1; k >= 0; --k)
    if (is_island_size_key(axes[static_cast<std::size_t>(k)].key)) return k;
  return -1;
}

std::string series_fixed(const std::vector<AxisSpec>& axes, int series_axis, std::size_t value) {
  if (axes.size() != 2) return "";
  const AxisSpec& held = axes[static_cast<std::size_t>(1 - series_axis)];
  return held.key + "=" + held.values[value];
}

void check_held_sweep_size(const std::vector<AxisSpec>& axes, const std::string& needed_by) {
  const std::uint64_t points = sweep_point_count(axes);
  if (points <= kMaxSweepPoints) return;
  throw InputError(fmt::format(
      "shardmeter sweep: {} points ({}) would hold about {:.1f} GiB in memory ({} KiB per point) for {}; a sweep "
      "held in memory has at most {} points (about {:.1f} GiB); a larger sweep streams its table, --json and -o "
      "FILE.csv/.h5 but cannot give {}: sweep a coarser range (A:B:xK)",
      points, sweep_shape(axes), static_cast<double>(points) * kSweepBytesPerPoint / (1 << 30),
      kSweepBytesPerPoint / 1024, needed_by, kMaxSweepPoints,
      static_cast<double>(kMaxSweepPoints) * kSweepBytesPerPoint / (1 << 30), needed_by));
}

search::Space sweep_space(const LoadedScenario& base, const Catalog& catalog, const std::vector<AxisSpec>& axes) {
  check_axis_count(axes);
  std::vector<search::Axis> built;
  for (const AxisSpec& spec : axes) {
    try {
      built.push_back(build_axis(base.doc, base.scenario, catalog, spec));
    } catch (const ScenarioError& e) {
      // Name the scenario file too: the value is applied to it.
      SourceLocation where = e.where();
      where.file = base.doc.path + ": " + where.file;
      throw ScenarioError(where, e.key(), e.value(), e.problem());
    }
  }
  try {
    return search::Space(base.scenario, std::move(built));
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("shardmeter sweep: ") + e.what());
  }
}

Sweep run_sweep(const LoadedScenario& base, const Catalog& catalog, const std::vector<AxisSpec>& axes,
                bool replan) {
  check_axis_count(axes);

  check_held_sweep_size(axes, "a held sweep (--plot or --replan)");

  Sweep sweep;
  sweep.scenario_name = base.name;
  if (replan) {
    const SearchSection section = read_search_section(base.doc, catalog, base.scenario);
    if (section.axes.empty())
      throw InputError("shardmeter sweep: --replan needs a `search:` section with axes in " + base.doc.path);
    sweep.replanned = true;
    sweep.replan_objective = std::string(section.objectives.front().name());
  }
  sweep.axes = axes;
  sweep.space = std::make_shared<const search::Space>(sweep_space(base, catalog, axes));
  const search::Space* space = sweep.space.get();

  const std::size_t n0 = axes[0].values.size();
  const std::size_t n1 = axes.size() == 2 ? axes[1].values.size() : 1;
  sweep.points.reserve(n0 * n1);
  for (std::uint32_t a = 0; a < n0; ++a) {
    for (std::uint32_t b = 0; b < n1; ++b) {
      SweepPoint p;
      p.values = axes.size() == 2 ? std::vector<std::uint32_t>{a, b} : std::vector<std::uint32_t>{a};
      p.index = space->index_of(p.values);
      p.estimate = model::evaluate(space->scenario(p.index));
      if (replan) {
        std::vector<Override> at;
        for (std::size_t k = 0; k < axes.size(); ++k)
          at.push_back(parse_override(axes[k].key + "=" + axes[k].values[p.values[k]]));
        const BestPlan best = best_plan_at(base, catalog, axes, at);
        if (best.found) {
          p.replanned = std::make_shared<const model::Scenario>(best.scenario);
          p.estimate = best.estimate;
        } else {
          p.no_plan = true;
        }
      }
      for (std::size_t k = 0; k < axes.size(); ++k) p.labels.push_back(axes[k].values[p.values[k]]);
      p.series = axes.size() == 2 ? static_cast<int>(a) : 0;
      sweep.points.push_back(std::move(p));
    }
  }

  // Knee: along the island-size axis (the last one if both are).
  sweep.knee_axis = sweep_knee_axis(axes);
  if (sweep.knee_axis >= 0) {
    for (SweepSeries& s : series_along(sweep, sweep.knee_axis)) {
      std::vector<double> cost, speed;
      for (std::size_t i : s.feasible) {
        cost.push_back(sweep.points[i].estimate.total_cost_usd);
        speed.push_back(sweep.points[i].estimate.effective_tokens_per_s);
      }
      KneeSeries ks{std::move(s), find_knee(cost, speed)};
      if (ks.knee.found) sweep.points[ks.series.feasible[ks.knee.point]].knee = true;
      sweep.knees.push_back(std::move(ks));
    }
  }

  // Transition: along the last axis, per value of the first.
  for (SweepSeries& s : series_along(sweep, static_cast<int>(axes.size()) - 1)) {
    std::vector<std::optional<double>> x;
    std::vector<double> share;
    for (std::size_t i : s.feasible) {
      x.push_back(label_number(sweep.points[i].labels[static_cast<std::size_t>(s.axis)]));
      share.push_back(sweep.points[i].estimate.exposed_comm_fraction);
    }
    TransitionSeries ts{std::move(s), find_transition(x, share, kTransitionLevel)};
    sweep.transitions.push_back(std::move(ts));
    const std::string text = describe_transition(sweep, sweep.transitions.back());
    for (std::size_t i : sweep.transitions.back().series.points) sweep.points[i].comm_transition = text;
  }
  return sweep;
}

std::string describe_transition(const Sweep& sweep, const TransitionSeries& t) {
  return describe_transition(t.transition, series_points(sweep, t.series));
}

std::string describe_knee(const Sweep& sweep, const KneeSeries& k) {
  return describe_knee(k.knee, series_points(sweep, k.series));
}

std::string describe_transition(const Transition& transition, const SeriesPoints& s) {
  switch (transition.status) {
    case CrossingStatus::no_points: return "n/a (no feasible point)";
    case CrossingStatus::never: return "never (below 50 % at every feasible point)";
    case CrossingStatus::always: return "always (at or above 50 % at every feasible point)";
    case CrossingStatus::crosses: break;
  }
  std::string out;
  for (const Crossing& c : transition.crossings) {
    if (!out.empty()) out += "; ";
    const std::string lo = s.label(c.after), hi = s.label(c.after + 1);
    out += c.rising ? "rises past 50 % " : "falls below 50 % ";
    out += c.x ? fmt::format("at {} (between {} and {})", number_text(*c.x), lo, hi)
               : fmt::format("between {} and {}", lo, hi);
    const std::string driver = driving_component(s.estimate(c.after), s.estimate(c.after + 1), true, !c.rising);
    out += driver.empty() ? fmt::format(", no communication share {} by half a point or more", c.rising ? "grows" : "falls")
                          : ", driven by " + driver;
  }
  return out;
}

std::string describe_knee(const Knee& knee, const SeriesPoints& s) {
  if (!knee.found) return "n/a (no feasible point)";
  const std::size_t j = knee.point, n = s.size;
  const model::Estimate at = s.estimate(j);
  const model::Estimate next = j + 1 < n ? s.estimate(j + 1) : at;
  std::string out = fmt::format("at {}: {} effective tokens/s per $M of total cost, the most of the series",
                                s.label(j), count_si(at.effective_tokens_per_s / (at.total_cost_usd / 1e6)));
  if (j + 1 < n) {
    out += fmt::format("; the next size, {}, adds {} cost for {} speed", s.label(j + 1),
                       signed_percent(next.total_cost_usd / at.total_cost_usd - 1),
                       signed_percent(next.effective_tokens_per_s / at.effective_tokens_per_s - 1));
  } else if (n > 1) {
    out += " (the largest size: every step still added at least as much speed as cost)";
  }
  // What causes the knee: of the three factors of effective tokens/s per GPU (knee_cause), the one that falls most
  // from the knee to the next size; for the step, the part of the step whose share grows most from the first size
  // to the one past the knee.
  const std::size_t past = std::min(j + 1, n - 1);
  KneeCause cause;
  if (j + 1 < n) {
    const auto figures = [](const model::Estimate& e) {
      return SizeFigures{static_cast<double>(e.gpus), e.tokens_per_s, e.batch_efficiency, e.diloco_efficiency,
                         e.optimizer_batch_tokens, e.optimal_batch_tokens};
    };
    cause = knee_cause(figures(at), figures(next));
  }
  if (cause.kind == KneeCauseKind::batch_efficiency) {
    out += fmt::format("; caused by batch efficiency {} -> {} (a batch of {} tokens per optimizer step against the "
                       "optimal {}, docs/model.md §9.7), per-GPU step throughput x{:.2f}",
                       percent(at.batch_efficiency), percent(next.batch_efficiency), count_si(next.optimizer_batch_tokens),
                       count_si(next.optimal_batch_tokens), cause.step_factor);
  } else if (cause.kind == KneeCauseKind::diloco_convergence) {
    out += fmt::format("; caused by DiLoCo convergence {} -> {} (docs/model.md §9.4), per-GPU step throughput x{:.2f}",
                       percent(at.diloco_efficiency), percent(next.diloco_efficiency), cause.step_factor);
  } else if (cause.kind == KneeCauseKind::batch_limited) {
    const std::string driver = driving_component(at, next, false);
    out += fmt::format("; caused by batch efficiency: the batch stays at {} tokens per optimizer step for {} GPUs, "
                       "within 2x of the optimal {} (docs/model.md §9.7), so the step pays instead{}",
                       count_si(next.optimizer_batch_tokens), s.label(j + 1),
                       count_si(next.optimal_batch_tokens), driver.empty() ? "" : ": " + driver);
  } else if (past > 0) {
    const std::string driver = driving_component(s.estimate(0), s.estimate(past), false);
    out += driver.empty() ? fmt::format("; no part of the step grows by half a point or more (from {} to {})",
                                        s.label(0), s.label(past))
                          : fmt::format("; driven by {} (from {} to {})", driver, s.label(0),
                                        s.label(past));
  }
  return out;
}

}  // namespace shardmeter::cli
