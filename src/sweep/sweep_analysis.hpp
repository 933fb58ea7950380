#pragma once
// The two analyses `shardmeter sweep` prints after its table, as pure functions of a series (the feasible points
// of one axis, in axis order). Definitions (also in docs/islands.md, "shardmeter sweep"):
//
// Island-size knee. Points i = 0..n-1 with cost c_i ($/h) and throughput r_i (effective tokens/s). Step j (from
// point j-1 to point j, j >= 1) buys m_j = (r_j - r_{j-1}) / (c_j - c_{j-1}) tokens/s per extra $/h; its ratio is
// m_j / m_1 (the first step is the reference). The knee is the point k-1 where k is the first step of the tail of
// steps that all have ratio < F: past the knee, every further step adds less than F of the first step's tokens/s
// per dollar. No such tail (the last step still pays) means the knee is not reached.
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

enum class KneeStatus {
  found,            // `point` is the knee
  not_reached,      // every step up to the last keeps at least F of the first step's return
  at_start,         // the first step already adds no throughput: the smallest size is the knee
  too_few_points,   // fewer than three points: no step to compare with the first
  cost_flat,        // the first step does not raise the cost, so "per dollar" is undefined
};

struct Knee {
  KneeStatus status = KneeStatus::too_few_points;
  std::size_t point = 0;                 // index into the series (found, at_start)
  std::vector<double> marginal;          // per point: m_j for j >= 1; NaN at 0 (and where the cost is flat)
  std::vector<double> ratio;             // per point: m_j / m_1; NaN where undefined
};

// `cost_per_hour` and `throughput` have one entry per point, in axis order; 0 < fraction <= 1.
Knee find_knee(std::span<const double> cost_per_hour, std::span<const double> throughput, double fraction);

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

// An axis label as a number ("64", "1.5e3", "0.35"), or nullopt.
std::optional<double> label_number(const std::string& label);

}  // namespace shardmeter::cli
