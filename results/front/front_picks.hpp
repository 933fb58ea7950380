#pragma once
// The plans a report annotates, `search` marks and `export --pick` selects: the cheapest, the fastest and the knee of
// a front, and the row numbers every output shows.
//
// Picks trade a cost against a speed, both taken from the objectives the front was searched with (pick_axes): the
// cost is total_cost_usd unless the search minimised another cost metric, the speed tokens_per_s unless it
// optimised another speed metric (effective_tokens_per_s, wall_clock_days, ...). Only feasible rows with a finite
// cost and speed are picked; a sweep file's rows that do not fit in memory never are.
//
// Knee (the one definition; docs/search.md "The knee" explains it): among the picked rows on the Pareto front of the
// two axes, the one with the most speed per unit of cost, g / c (g = speed as "more is better": tokens/s, or 1 / days
// for wall-clock). Up to it, each step along the front buys at least as much speed as it adds cost in relative
// terms (d log g >= d log c); past it, paying x % more buys less than x % more speed. Ratios only, so the choice
// does not depend on units, on the front's scale or on how far the search space reached. Ties go to the cheaper
// plan; when speed per cost only falls from the cheapest plan on, the knee is the cheapest plan.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/spec/objective.hpp"
#include "results/front/row.hpp"

namespace shardmeter::results {

// The knee's definition as every output states it: the Markdown and HTML reports print it, docs/search.md "The knee"
// holds it word for word (tests/test_knee_text.cpp checks both), and knee_of below implements it.
inline constexpr std::string_view kKneeDefinition =
    "The knee is the plan on the Pareto front of cost and speed with the most speed per unit of cost (speed / cost): "
    "up to it, each step along the front buys at least as much speed as it adds cost in relative terms; past it, "
    "paying x % more buys less than x % more speed. Only ratios enter, so the knee does not depend on units, on the "
    "front's scale or on how far the search space reached. Ties go to the cheaper plan; when speed per cost only "
    "falls from the cheapest plan on, the knee is the cheapest plan.";

// Rows are numbered from 1 in every output: the search table, reports, export headers, plan-json and --pick N.
inline std::size_t row_number(std::size_t index) { return index + 1; }

struct PickAxes {
  model::Objective cost;    // minimised
  model::Objective speed;   // tokens_per_s (max), effective_tokens_per_s (max), wall_clock_days (min), ...

  // The speed as "more is better": the value, or its reciprocal for a minimised speed.
  double goodness(double speed_value) const;
  // "tokens/s", "effective tokens/s", "days of wall-clock", ... for sentences and axis titles.
  std::string speed_words() const;
};
// From the objectives a front was searched with (RunInfo::objectives); the defaults when they name neither.
PickAxes pick_axes(const std::vector<model::Objective>& objectives);

// Why a row cannot be picked ("it does not fit in GPU memory (out_of_memory)", "its tokens_per_s is not a finite
// number"), or nullopt when it can. Throws ResultsError when the row lacks the axes' columns.
std::optional<std::string> unpickable(const Row& row, const PickAxes& axes);

struct FrontPicks {
  PickAxes axes;
  std::size_t cheapest = 0;   // lowest cost (ties: higher speed, then earlier row)
  std::size_t fastest = 0;    // best speed (ties: lower cost, then earlier row)
  std::size_t knee = 0;       // see above
  std::size_t pickable = 0;   // rows that could be picked
};

// Row indices into `rows`; nullopt when no row can be picked.
std::optional<FrontPicks> pick_front(std::span<const Row> rows, const PickAxes& axes);

// The same on plain values (the search's table picks among its points before any file exists): each point's cost and
// speed under `axes`, and whether it can be picked.
struct PickPoint {
  double cost = 0, speed = 0;
  bool pickable = true;
};
std::optional<FrontPicks> pick_points(std::span<const PickPoint> points, const PickAxes& axes);

// The knee of plain (cost, goodness) pairs, by the definition above; index into `points`. Requires a non-empty
// input of positive, finite values, all on one Pareto front.
std::size_t knee_of(std::span<const std::pair<double, double>> cost_goodness);

// "cheapest", "fastest", "knee" -> the pick; nullopt for any other word.
std::optional<std::size_t> pick_by_name(const FrontPicks& picks, std::string_view name);

}  // namespace shardmeter::results
