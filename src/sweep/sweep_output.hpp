#pragma once
// Writing a sweep: CSV (one record per point) or HDF5 (/front: every point in the search result layout, readable
// by results::read_front; /sweep: the CSV's table; root attributes with the analyses), chosen by the file's
// extension. Always atomic: a temporary file in the target's directory, renamed when complete.
#include <string>
#include <vector>

#include "results/front/row.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/sweep/sweep.hpp"

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

// Throws results::OutputError (nothing is left behind) or InputError for an unknown extension.
void write_sweep(const Sweep& sweep, const std::string& path, const SweepProvenance& provenance);

}  // namespace shardmeter::cli
