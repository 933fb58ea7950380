#pragma once
// A sweep: the scenario evaluated at every point of one or two axes (an exhaustive search that keeps every point),
// followed by the island-size knee and the compute/communication transition (src/sweep/sweep_analysis.hpp) along each
// series of the sweep. `shardmeter sweep` prints it (src/sweep/sweep_report.hpp) and writes it (src/sweep/sweep_output.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"
#include "search/space.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/sweep/sweep_analysis.hpp"

namespace shardmeter::cli {

inline constexpr int kMaxSweepAxes = 2;
inline constexpr double kTransitionLevel = 0.5;   // exposed-communication share of the step
// A Sweep (below) holds every point (its estimate, labels, marks), so its memory grows with its size: about
// kSweepBytesPerPoint each with its outputs (measured, docs/hardening.md "Bounded memory"). It holds at most
// kMaxSweepPoints; a larger sweep is streamed instead (src/sweep/sweep_stream.hpp: its CSV or HDF5 file, its table or
// --json), and --plot and --replan, which need every point at once, are refused before any work, with the size they
// would need (issue 33).
inline constexpr std::size_t kMaxSweepPoints = 20000;
inline constexpr std::size_t kSweepBytesPerPoint = 5 * 1024;

struct SweepPoint {
  std::uint64_t index = 0;                 // mixed-radix index in the search space (as in search result files)
  std::vector<std::uint32_t> values;       // value index per axis, in axis order
  std::vector<std::string> labels;         // label per axis ("512", "h100-sxm")
  // The point's scenario is Sweep::scenario_of(point): the plan space's scenario at `index`, rebuilt when a writer
  // needs it (a held point keeps no 4 KiB copy), or with --replan the best plan found, kept here.
  std::shared_ptr<const model::Scenario> replanned;
  model::Estimate estimate;
  int series = 0;                          // which transition series (row of the first axis) the point belongs to
  bool knee = false;                       // the knee of its knee series
  std::string comm_transition;             // its transition series' crossing, as printed ("1,536", "never", ...)
  bool no_plan = false;                    // --replan: no plan of the search space is feasible and meets the
                                           // constraints here (the point is left out of the analyses)
};

// One line of points along `axis` with every other axis held at one value.
struct SweepSeries {
  int axis = 0;                            // the axis the series runs along
  std::string fixed;                       // "plan.tp=4" for the held axis of a 2-axis sweep; "" for 1 axis
  std::vector<std::size_t> points;         // indices into Sweep::points, in axis order (all points)
  std::vector<std::size_t> feasible;       // the feasible ones: the analyses use only these
};

struct KneeSeries {
  SweepSeries series;
  Knee knee;                               // over series.feasible
};

struct TransitionSeries {
  SweepSeries series;
  Transition transition;                   // over series.feasible
};

struct Sweep {
  std::string scenario_name;
  std::vector<AxisSpec> axes;              // in the order given: the first axis varies slowest
  std::vector<SweepPoint> points;          // every combination, first axis outermost
  int knee_axis = -1;                      // the island-size axis, or -1 (no knee analysis)
  std::vector<KneeSeries> knees;
  std::vector<TransitionSeries> transitions;  // along the last axis, one per value of the first (2 axes)
  bool replanned = false;                  // --replan: each point is the best plan of the scenario's search: space
  std::string replan_objective;            // the objective the best plan was chosen by (the search's first)
  std::shared_ptr<const search::Space> space;   // the plan space of the swept axes (sweep_space)

  model::Scenario scenario_of(const SweepPoint& point) const {
    return point.replanned ? *point.replanned : space->scenario(point.index);
  }
};

// True for cluster.islands.N.gpus, cluster.islands.N.nodes and cluster.islands.N.count.
bool is_island_size_key(const std::string& key);

// The number of points of a sweep over `axes` (the product of their sizes).
std::uint64_t sweep_point_count(const std::vector<AxisSpec>& axes);
// "4096 x 4096" / "12 values": the shape of a sweep in messages.
std::string sweep_shape(const std::vector<AxisSpec>& axes);
// The knee axis of a sweep: the island-size axis (the last one if both are), or -1.
int sweep_knee_axis(const std::vector<AxisSpec>& axes);
// "plan.tp=4": the value `value` of the axis held fixed along a series of a 2-axis sweep ("" for 1 axis).
std::string series_fixed(const std::vector<AxisSpec>& axes, int series_axis, std::size_t value);

// Throws InputError, with the size it would need, when a sweep over `axes` has more than kMaxSweepPoints points and
// so cannot be held in memory for `needed_by` ("--plot", "--replan").
void check_held_sweep_size(const std::vector<AxisSpec>& axes, const std::string& needed_by);

// The plan space of a sweep: one search axis per sweep axis, first axis outermost. Throws InputError for no axes,
// more than two, or two axes that change the same scenario fields, and ScenarioError (naming the scenario file)
// for a value that does not parse.
search::Space sweep_space(const LoadedScenario& base, const Catalog& catalog, const std::vector<AxisSpec>& axes);

// A series as the analysis texts read it: its feasible points in axis order, each with its label along the series
// axis and its estimate (a function, so that a streamed sweep can evaluate the few points a text names again).
struct SeriesPoints {
  std::size_t size = 0;
  std::function<std::string(std::size_t)> label;
  std::function<model::Estimate(std::size_t)> estimate;
};
// Labels for the report: "1,536" / "between 512 and 1024" / "never (below 50 % everywhere)".
std::string describe_transition(const Transition& transition, const SeriesPoints& series);
std::string describe_knee(const Knee& knee, const SeriesPoints& series);

// Evaluates `base` at every point and holds them. Throws InputError, before any work, for more than kMaxSweepPoints
// points (check_held_sweep_size); ScenarioError naming the axis, its key and the value for a value that
// does not parse, and InputError for no axes, more than two, or two axes that change the same scenario fields.
// An inconsistent or out-of-memory point is a result (its estimate says why), not an error.
// replan: at every point, search the scenario's `search:` space (its axes on the swept keys left out) with the
// search engine and keep the best plan for the first objective, so the analyses describe the best achievable
// layout; InputError when the scenario has no `search:` axes. Without it every point keeps the base layout.
Sweep run_sweep(const LoadedScenario& base, const Catalog& catalog, const std::vector<AxisSpec>& axes,
                bool replan = false);

// The same for a series of a Sweep.
std::string describe_transition(const Sweep& sweep, const TransitionSeries& t);
std::string describe_knee(const Sweep& sweep, const KneeSeries& k);

}  // namespace shardmeter::cli
