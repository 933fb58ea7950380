#pragma once
// Published nccl-tests results (scenarios/validation/nccl_tests_runs.csv) against the collective model: each row's
// bus bandwidth as model::nccl_collective predicts it over the catalog GPU's links, scored apart from the step-time
// MAPE as groups of their own (docs/accuracy.md "nccl-tests bus bandwidth"). Nothing is fitted on these rows.
#include <string>
#include <vector>

#include "src/scenario/catalog.hpp"

namespace shardmeter::cli {

struct NcclTestRow {
  std::string id;
  std::string group;       // nccl-tests-<gpu>-<scale>
  int line = 0;
  double published_gbs = 0;   // busbw, GB/s
  double predicted_gbs = 0;
  double error_pct() const { return published_gbs != 0 ? (predicted_gbs - published_gbs) / published_gbs * 100 : 0; }
};

struct NcclTestGroup {
  std::string name;
  int rows = 0;
  double mape = 0;    // percent
  double worst = 0;   // percent, absolute
};

// Reads the CSV (ScenarioError naming file, line and column on a bad cell) and predicts every row; the GPUs are
// catalog entries of `catalog` (data_dir's gpus.yaml).
std::vector<NcclTestRow> score_nccl_tests(const std::string& csv_path, const Catalog& catalog);
std::vector<NcclTestGroup> summarize_nccl_test_groups(const std::vector<NcclTestRow>& rows);
std::string format_nccl_test_report(const std::vector<NcclTestRow>& rows);
// validate --json's "nccl_tests" member.
std::string nccl_test_json_text(const std::vector<NcclTestRow>& rows);

}  // namespace shardmeter::cli
