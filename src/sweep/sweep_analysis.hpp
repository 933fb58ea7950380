#pragma once
// The two analyses `shardmeter sweep` prints after its table, as pure functions of a series (the feasible points
// of one axis, in axis order). Definitions (also in docs/islands.md, "shardmeter sweep"):
//
// Island-size knee: the knee of results/front/front_picks.hpp (the one definition, docs/search.md "The knee") over
// the series' feasible points, with the whole run's cost (total_cost_usd) against effective tokens/s: the size with the
// most effective tokens/s per dollar. Up to it each larger size adds at least as much speed as cost in relative
// terms; past it, less.
//
// Compute/communication transition. Points with share y_i of exposed communication in the step: the series
// crosses `level` (0.5) between points i and i+1 when exactly one of them is below it; the crossing is
// interpolated linearly in the axis value when both values are numbers (else it is reported between the labels).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace shardmeter::cli {

struct Knee {
  bool found = false;        // false: no point with a positive, finite cost and speed
  std::size_t point = 0;     // index into the series
};

// `total_cost` and `speed` have one entry per point, in axis order.
Knee find_knee(std::span<const double> total_cost, std::span<const double> speed);

enum class CrossingStatus {
  crosses,   // see `crossings`
  never,     // every point is below the level
  always,    // every point is at or above the level
  no_points,
};

struct Crossing {
  std::size_t after = 0;     // the crossing lies between point `after` and point `after + 1`
  double t = 0;              // position between them, 0..1 (linear in the share)
  bool rising = true;        // the share grows along the axis
  std::optional<double> x;   // interpolated axis value, when both axis values are numbers
};

struct Transition {
  CrossingStatus status = CrossingStatus::no_points;
  std::vector<Crossing> crossings;   // in axis order
};

// `x` holds the axis value of each point when it is a number (std::nullopt for labels such as "h100-sxm").
Transition find_transition(std::span<const std::optional<double>> x, std::span<const double> share,
                           double level = 0.5);

// Why effective tokens/s per GPU fall from one size to the next (the knee's cause, docs/islands.md): effective
// tokens/s per GPU = trained tokens/s per GPU x batch efficiency x DiLoCo efficiency (docs/model.md §9.8), so the
// ratio from `before` to `after` is the product of three factors. The cause is the factor that falls most (the
// smallest one below 1): `step` when the step itself scales worse (trained tokens/s per GPU; the step's growing
// part names it), `batch_efficiency` when the re-planned batch passes the optimal batch, `diloco_convergence` when
// more replicas or a longer H cost loss-equivalent tokens. `none` when no factor falls.
// A `step` cause is `batch_limited` instead when the batch could not keep pace with the GPUs because of the batch
// term: the batch per GPU fell (by a quarter or more) and doubling the batch would pass the optimal batch B_opt
// (docs/model.md §9.7). The step then pays (bubble, DP communication) because a larger batch would cost tokens.
struct SizeFigures {
  double gpus = 0;
  double tokens_per_s = 0;         // trained
  double batch_efficiency = 1;
  double diloco_efficiency = 1;
  double optimizer_batch_tokens = 0;   // B of §9.7
  double optimal_batch_tokens = 0;     // B_opt of §9.7
};

enum class KneeCauseKind { none, step, batch_limited, batch_efficiency, diloco_convergence };

struct KneeCause {
  KneeCauseKind kind = KneeCauseKind::none;
  double step_factor = 1;          // (tokens/s per GPU after) / (before)
  double batch_factor = 1;         // batch efficiency after / before
  double diloco_factor = 1;        // DiLoCo efficiency after / before
};

KneeCause knee_cause(const SizeFigures& before, const SizeFigures& after);

// An axis label as a number ("64", "1.5e3", "0.35"), or nullopt.
std::optional<double> label_number(const std::string& label);

}  // namespace shardmeter::cli
