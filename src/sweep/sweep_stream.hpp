#pragma once
// A sweep too large to hold (more than kMaxSweepPoints points, issue 33), streamed to a CSV file in two passes over
// its points, as `search --all` streams its candidates:
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
#include <optional>
#include <string>
#include <vector>

#include "search/space.hpp"
#include "src/planning/axis_builder.hpp"
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
};

// Pass 1 over `space` (sweep_space(base, catalog, axes)).
StreamedSweep analyse_streamed_sweep(const search::Space& space, const std::string& scenario_name,
                                     const std::vector<AxisSpec>& axes);
// Pass 2: every point's row to `path` (a .csv file, written atomically). Throws results::OutputError.
void write_streamed_sweep_csv(const StreamedSweep& sweep, const search::Space& space, const std::string& path);
// What `sweep -o FILE.csv` prints for it: the heading, where the rows are, and the analyses.
std::string format_streamed_sweep(const StreamedSweep& sweep, const std::string& path);

}  // namespace shardmeter::cli
