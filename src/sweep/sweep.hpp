#pragma once
// A sweep: the scenario evaluated at every point of one or two axes (an exhaustive search that keeps every point),
// followed by the island-size knee and the compute/communication transition (src/sweep/sweep_analysis.hpp) along each
// series of the sweep. `shardmeter sweep` prints it (src/sweep/sweep_report.hpp) and writes it (src/sweep/sweep_output.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/sweep/sweep_analysis.hpp"

namespace shardmeter::cli {

inline constexpr int kMaxSweepAxes = 2;
inline constexpr double kTransitionLevel = 0.5;   // exposed-communication share of the step
// A sweep holds every point (its scenario, estimate, labels) for the analyses and the printed table, so its memory
// grows with its size: about kSweepBytesPerPoint each (measured, docs/hardening.md "Bounded memory"). Larger
// sweeps are refused before any work, with the size they would need (issue 33): under 1 GiB resident at the limit.
inline constexpr std::size_t kMaxSweepPoints = 20000;
inline constexpr std::size_t kSweepBytesPerPoint = 36 * 1024;

struct SweepPoint {
  std::uint64_t index = 0;                 // mixed-radix index in the search space (as in search result files)
  std::vector<std::uint32_t> values;       // value index per axis, in axis order
  std::vector<std::string> labels;         // label per axis ("512", "h100-sxm")
  model::Scenario scenario;
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
};

// True for cluster.islands.N.gpus, cluster.islands.N.nodes and cluster.islands.N.count.
bool is_island_size_key(const std::string& key);

// Evaluates `base` at every point. Throws InputError, before any work, for more than kMaxSweepPoints points; ScenarioError naming the axis, its key and the value for a value that
// does not parse, and InputError for no axes, more than two, or two axes that change the same scenario fields.
// An inconsistent or out-of-memory point is a result (its estimate says why), not an error.
// replan: at every point, search the scenario's `search:` space (its axes on the swept keys left out) with the
// search engine and keep the best plan for the first objective, so the analyses describe the best achievable
// layout; InputError when the scenario has no `search:` axes. Without it every point keeps the base layout.
Sweep run_sweep(const LoadedScenario& base, const Catalog& catalog, const std::vector<AxisSpec>& axes,
                bool replan = false);

// Labels for the report: "1,536" / "between 512 and 1024" / "never (below 50 % everywhere)".
std::string describe_transition(const Sweep& sweep, const TransitionSeries& t);
std::string describe_knee(const Sweep& sweep, const KneeSeries& k);

}  // namespace shardmeter::cli
