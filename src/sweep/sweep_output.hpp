#pragma once
// Writing a sweep: CSV (one record per point) or HDF5 (/front: every point in the search result layout, readable
// by results::read_front; /sweep: the CSV's table; root attributes with the analyses), chosen by the file's
// extension. Always atomic: a temporary file in the target's directory, renamed when complete.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "results/files/table_hdf5.hpp"
#include "results/front/row.hpp"
#include "results/front/run_info.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/sweep/sweep.hpp"
#include "src/sweep/sweep_report.hpp"

namespace shardmeter::cli {

enum class SweepFormat { csv, hdf5 };

// ".csv" -> csv; ".h5" / ".hdf5" -> hdf5; anything else throws InputError naming the path.
SweepFormat sweep_format(const std::string& path);

// The sweep's own columns of one point (after its result-file columns): its series, whether it is its series' knee,
// its transition series' crossing as printed, and --replan's no_plan.
struct SweepMarks {
  int series = 0;
  bool knee = false;
  const std::string* comm_transition = nullptr;   // never null
  bool no_plan = false;
};
std::vector<std::string> sweep_extra_columns();   // sweep_series, knee, comm_transition, no_plan
std::vector<std::string> sweep_extra_units();
void append_sweep_cells(const SweepMarks& marks, std::vector<results::CellValue>& cells);

// Every result-file column of each point (results/README.md), then the sweep's own columns:
// sweep_series, knee, comm_transition.
results::Table sweep_table(const Sweep& sweep);
// One unit per column of sweep_table(), "" when unitless.
std::vector<std::string> sweep_units(const Sweep& sweep);

struct SweepProvenance {
  std::string scenario_text;             // the scenario file as read
  std::vector<std::string> overrides;    // --set texts
  std::string created;                   // ISO 8601 timestamp
  double elapsed_s = 0;
};

// What an HDF5 file of a sweep holds besides its rows, shared by the held and the streamed sweep: the run
// information (points, feasible, rejected counts by reason) and the root attributes of the analyses.
results::RunInfo sweep_run_info(const std::string& scenario_name, const std::vector<AxisSpec>& axes, std::uint64_t points,
                                std::uint64_t feasible, const std::map<std::string, std::uint64_t>& rejected,
                                const SweepProvenance& provenance);
results::TableAttributes sweep_root_attributes(const std::vector<AxisSpec>& axes, int knee_axis,
                                               const std::string& replanned_for, const std::vector<SeriesLine>& knees,
                                               const std::vector<SeriesLine>& transitions,
                                               const SweepProvenance& provenance);

// Throws results::OutputError (nothing is left behind) or InputError for an unknown extension.
void write_sweep(const Sweep& sweep, const std::string& path, const SweepProvenance& provenance);

}  // namespace shardmeter::cli
