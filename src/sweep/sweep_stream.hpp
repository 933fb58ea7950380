#pragma once
// A sweep too large to hold (more than kMaxSweepPoints points, issue 33), streamed to a CSV or HDF5 file in passes
// over its points, as `search --all` streams its candidates:
//   1. analyse_streamed_sweep evaluates every point and keeps only what the analyses need, per series: each feasible
//      point's position along the series, total cost, effective tokens/s and exposed-communication share (32
//      bytes). The series along the last axis is contiguous in point order, so only the current one is held; a knee
//      along the first of two axes runs across the whole sweep, so its samples are held for every series (32 bytes
//      per feasible point). The few points an analysis text names are evaluated again when the text is written.
//   2. write_streamed_sweep_csv evaluates every point again (model::evaluate is pure: the same estimate) and writes
//      its row, with the analyses' columns (knee, comm_transition), to the file record by record.
// The rows are those of write_sweep's CSV for the same sweep, byte for byte (tests/test_sweep_stream.cpp).
// Memory: the plan space, one point, the series samples and the writer's buffer (docs/hardening.md "Bounded memory").
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "results/files/row_layout.hpp"
#include "results/files/table_hdf5.hpp"
#include "results/front/run_info.hpp"
#include "search/space.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/sweep/sweep_output.hpp"
#include "src/sweep/sweep_report.hpp"

namespace shardmeter::cli {

struct StreamedSweep {
  std::string scenario_name;
  std::vector<AxisSpec> axes;
  std::uint64_t points = 0;
  std::uint64_t feasible = 0;
  int island_entries = 0;                             // the most island entries of any point (the file's layout)
  int knee_axis = -1;
  std::vector<SeriesLine> knees;                      // one per knee series, as Sweep::knees
  std::vector<std::optional<std::uint64_t>> knee_index;   // per knee series: the knee's index in the space
  std::vector<SeriesLine> transitions;                // one per value of the first axis (2 axes), as Sweep::transitions
  std::map<std::string, std::uint64_t> rejected;      // infeasible points by reason (the HDF5 file's run information)
  // The printed table (analyse_streamed_sweep's `table`): its shape and the width of each of its columns.
  TableShape table_shape;
  std::vector<std::size_t> table_width;
};

// Pass 1 over `space` (sweep_space(base, catalog, axes)). table: also find the printed table's shape and column
// widths (every point's cells are formatted once more).
StreamedSweep analyse_streamed_sweep(const search::Space& space, const std::string& scenario_name,
                                     const std::vector<AxisSpec>& axes, bool table = false);
// The rows of a sweep as its file writers and printers read them, in sweep order: each point as a PlanPoint with
// its sweep columns. A streamed sweep evaluates its points again (streamed_rows); a held Sweep walks its points
// (held_rows), so write_sweep writes a held sweep's file through the same writers, without a table of every row.
class SweepRows {
public:
  using Visit = std::function<void(const results::PlanPoint&, const SweepMarks&)>;
  using Walk = std::function<void(const Visit&)>;
  SweepRows(const std::vector<AxisSpec>& axes, int island_entries, Walk walk);
  const results::RowLayout& layout() const { return layout_; }   // RowLayout::fit of every point
  std::vector<std::string> columns() const;                       // the layout's, then sweep_extra_columns()
  std::vector<std::string> units() const;
  std::vector<results::CellValue> cells(const results::PlanPoint& point, const SweepMarks& marks) const;
  void run(const Visit& visit) const { walk_(visit); }

private:
  results::RowLayout layout_;
  Walk walk_;
};
SweepRows streamed_rows(const StreamedSweep& sweep, const search::Space& space);   // both held by reference
SweepRows held_rows(const Sweep& sweep);
// A .csv file of the rows; an HDF5 file of `points` rows (/front, /sweep, `info` and `root`). Atomic; throw
// results::OutputError.
void write_sweep_csv(SweepRows& rows, const std::string& path);
void write_sweep_hdf5(SweepRows& rows, const std::string& path, std::uint64_t points, const results::RunInfo& info,
                      const results::TableAttributes& root);

// Pass 2: every point's row to `path` (a .csv file, written atomically). Throws results::OutputError.
void write_streamed_sweep_csv(const StreamedSweep& sweep, const search::Space& space, const std::string& path);
// Passes 2 and 3 for an HDF5 file (.h5/.hdf5, written atomically): /front streamed through results::FrontWriter
// (begin_front/append_front), which also finds the widths of /sweep's text columns, then /sweep through
// results::TableDatasetWriter. The file holds what write_sweep writes for the same sweep: the same datasets, types,
// rows and attributes (tests/test_sweep_stream.cpp). Throws results::OutputError.
void write_streamed_sweep_hdf5(const StreamedSweep& sweep, const search::Space& space, const std::string& path,
                               const SweepProvenance& provenance);
// --json: the document sweep_json prints for the same sweep, byte for byte, its points written to `out` as they are
// evaluated (pass 2). Stops at the first point after `out` fails (a full device, a closed pipe; main() reports it).
void write_streamed_sweep_json(const StreamedSweep& sweep, const search::Space& space, std::ostream& out);
// The printed table (format_sweep_table's text for the same sweep, byte for byte), each row written to `out` as it
// is evaluated (pass 2; the sweep analysed with `table`). Stops like write_streamed_sweep_json.
void write_streamed_sweep_table(const StreamedSweep& sweep, const search::Space& space, std::ostream& out);

}  // namespace shardmeter::cli
