#pragma once
// What `shardmeter sweep` prints: one table row per point (first axis outermost), then the analyses; or the same
// as one JSON object (--json).
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "src/sweep/sweep.hpp"
#include "src/text/text_table.hpp"

namespace shardmeter::cli {

std::string format_sweep_table(const Sweep& sweep);

// The table in pieces, for a streamed sweep: its columns (some shown only when some point needs them), each
// point's cells, and the notes under it. A streamed sweep finds the shape and every column's width in its first
// pass and prints each row as it is evaluated (src/text/text_table.hpp render_table_line): the same text.
struct TableShape {
  bool waits = false;    // some point waits (table_waits): the `busy` column
  bool egress = false;   // some point pays egress (table_egress): the `egress` column
  bool knees = false;    // a knee axis: the "<- knee" column
};
bool table_waits(const model::Estimate& e);
bool table_egress(const model::Estimate& e);
std::vector<TextColumn> sweep_table_columns(const std::vector<AxisSpec>& axes, const TableShape& shape);
std::vector<std::string> sweep_table_cells(std::span<const std::string> labels, const model::Estimate& e, bool no_plan,
                                           bool knee, const TableShape& shape);
std::string sweep_table_notes(const TableShape& shape);

// The parts of the table's text a streamed sweep prints too (src/sweep/sweep_stream.hpp): the heading (replanned_for:
// the --replan objective, "" for a fixed layout) and the analyses, one line per series.
// A transition's crossing with the labels of the points on either side (--json).
struct LabelledCrossing {
  std::string after, before;
  std::optional<double> at;
  bool rising = false;
};
struct SeriesLine {
  std::string fixed;   // "plan.tp=4", or "" for a 1-axis sweep
  std::string text;    // describe_knee / describe_transition
  // For --json: a knee series' knee label (nullopt: none found); a transition series' status and crossings.
  std::optional<std::string> at;
  CrossingStatus status = CrossingStatus::no_points;
  std::vector<LabelledCrossing> crossings;
};
// The analyses of a held sweep as SeriesLines, one per Sweep::knees / Sweep::transitions.
std::vector<SeriesLine> knee_lines(const Sweep& sweep);
std::vector<SeriesLine> transition_lines(const Sweep& sweep);
std::string sweep_heading(const std::string& scenario_name, const std::vector<AxisSpec>& axes, std::uint64_t points,
                          std::uint64_t feasible, const std::string& replanned_for);
std::string sweep_analysis_lines(const std::vector<AxisSpec>& axes, int knee_axis,
                                 const std::vector<SeriesLine>& knees, const std::vector<SeriesLine>& transitions);

// {"scenario", "axes": [{"key", "values"}], "knee_axis", "points": [{"axis:<key>": label, ..., metrics,
//  "knee", "comm_transition"}], "knee": [{"fixed", "at", "text"}], "transition": [...]}, indented,
// with a final newline.
std::string sweep_json(const Sweep& sweep);
// The same text printed to `out` from the pieces below, a point at a time, instead of one JSON document of every
// point: what `sweep --json` prints. tests/test_sweep_stream.cpp checks it equals sweep_json.
void write_sweep_json(const Sweep& sweep, std::ostream& out);
// The same in pieces, for a streamed sweep: the text before and after the points (sweep_json_around), which a
// streamed sweep prints around its points (each sweep_json_point, in order, joined by sweep_json_points_text).
// A streamed sweep so prints what sweep_json returns for the same sweep, byte for byte.
struct JsonAround {
  std::string before;   // up to `"points": `
  std::string after;    // from the points' closing bracket to the final newline
};
JsonAround sweep_json_around(const std::string& scenario_name, const std::vector<AxisSpec>& axes,
                             const std::string& replanned_for, int knee_axis, const std::vector<SeriesLine>& knees,
                             const std::vector<SeriesLine>& transitions);
struct JsonPointMarks {
  bool knee = false;
  bool no_plan = false;
  const std::string* comm_transition = nullptr;   // never null
};
std::string sweep_json_point(const std::vector<AxisSpec>& axes, std::span<const std::string> labels,
                             std::uint64_t index, const model::Estimate& estimate, const JsonPointMarks& marks);
// The opening of point `i` (0: "[", then ","), and the closing after `count` points ("]", or "[]" for none).
std::string sweep_json_point_separator(std::uint64_t i);
std::string sweep_json_points_end(std::uint64_t count);

}  // namespace shardmeter::cli
