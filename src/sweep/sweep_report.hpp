#pragma once
// What `shardmeter sweep` prints: one table row per point (first axis outermost), then the analyses; or the same
// as one JSON object (--json).
#include <cstdint>
#include <string>
#include <vector>

#include "src/sweep/sweep.hpp"

namespace shardmeter::cli {

std::string format_sweep_table(const Sweep& sweep);

// The parts of the table's text a streamed sweep prints too (src/sweep/sweep_stream.hpp): the heading (replanned_for:
// the --replan objective, "" for a fixed layout) and the analyses, one line per series.
struct SeriesLine {
  std::string fixed;   // "plan.tp=4", or "" for a 1-axis sweep
  std::string text;    // describe_knee / describe_transition
};
std::string sweep_heading(const std::string& scenario_name, const std::vector<AxisSpec>& axes, std::uint64_t points,
                          std::uint64_t feasible, const std::string& replanned_for);
std::string sweep_analysis_lines(const std::vector<AxisSpec>& axes, int knee_axis,
                                 const std::vector<SeriesLine>& knees, const std::vector<SeriesLine>& transitions);

// {"scenario", "axes": [{"key", "values"}], "knee_axis", "points": [{"axis:<key>": label, ..., metrics,
//  "knee", "comm_transition"}], "knee": [{"fixed", "at", "text"}], "transition": [...]}, indented,
// with a final newline.
std::string sweep_json(const Sweep& sweep);

}  // namespace shardmeter::cli
