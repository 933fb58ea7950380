#pragma once
// What a report shows, computed once from the result files so the HTML and Markdown renderers (and the nightly
// index) say the same thing: the recommendation, the job (token budget, precision, model, GPU types and their
// calibration status), the rows as display text, the cheapest / knee / fastest picks, the baseline comparison with
// why the baseline differs, and the provenance. Pure: no files, no clock.
#include <optional>
#include <string>
#include <vector>

#include "results/report/front_diff.hpp"
#include "results/front/front_picks.hpp"
#include "results/front/row.hpp"
#include "results/front/row_decoder.hpp"

namespace shardmeter::results {

struct ReportInput {
  const ResultFile* front = nullptr;        // required
  std::string front_label;                  // how the report names it: a path or a date
  const ResultFile* baseline = nullptr;     // optional: an earlier front, normally of the same scenario
  std::string baseline_label;
  std::string generator;                    // footer text, e.g. "shardmeter 0.1.0"
};

// A decoded row (results/front/row_decoder.hpp) as the report's tables show it: its typed plan and metrics, and
// what the report adds (the picks' axes, why it cannot be chosen, its calibration, its roles). The display texts
// come from the typed plan (results/front/plan_labels.hpp).
struct ReportRow {
  PlanRecord record;
  double cost = 0;            // the picks' cost axis (total cost unless the search minimised another cost)
  double speed = 0;           // the picks' speed axis (tokens/s unless the search optimised another speed)
  std::optional<std::string> unpickable;   // why the row cannot be chosen (not feasible, ...)
  bool uncalibrated = false;  // runs on a GPU type without calibrated efficiency constants
  std::vector<std::string> picks;   // "cheapest", "knee", "fastest" (this row's roles)

  std::size_t row() const { return record.row; }   // index in its file (row_number(row()) is what the report shows)
  std::string gpu() const;            // gpu_label()
  std::string islands() const;        // islands_label()
  std::int64_t island_count() const { return record.scenario.cluster.total_islands(); }
  std::string parallel() const;       // parallel_label()
  std::string sharding() const;       // sharding_label()
  std::string batch() const;          // "micro / global"
  std::string recompute() const;      // plan.recompute's spelling
  std::string sync() const;           // sync_label()
  std::string bottleneck() const;     // the estimate's bottleneck's spelling
  std::string summary() const;        // plan_summary()
  double tokens_per_s() const { return record.metric(model::metric("tokens_per_s")); }
  double effective_tokens_per_s() const { return record.metric(model::metric("effective_tokens_per_s")); }
  // NaN for files written before the column existed.
  double usd_per_effective_million_tokens() const {
    return record.metric(model::metric("cost_usd_per_effective_million_tokens"));
  }
  double wall_clock_days() const { return record.metric(model::metric("wall_clock_days")); }
  double mfu() const { return record.metric(model::metric("mfu")); }
  double memory_headroom_gb() const { return record.metric(model::metric("memory_headroom_gb")); }
  std::uint32_t warning_bits() const;   // the estimate's model::Warning bits (0 in files before the column)
};

// One (label, value) line of a facts table.
struct Fact {
  std::string label;
  std::string value;
};

struct ReportModel {
  std::string title;                        // "ShardMeter report: <scenario_name>" ("... sweep of ..." for a sweep)
  std::string scenario_name;
  std::string scenario_text;
  std::string front_label, baseline_label, generator;
  bool sweep = false;                       // the file is a sweep's points (method "sweep"), not a search's front
  std::string what;                         // "8 plans on the cost/throughput Pareto front" or "12 sweep points, 9 feasible"
  PickAxes axes;                            // cost and speed, from the file's objectives
  std::string cost_title, speed_title;      // "cost (USD)", "throughput (tokens/s)", for tables and the plot
  std::vector<ReportRow> rows;                // the file's rows, in file order
  std::vector<ReportRow> baseline_rows;       // the baseline's rows (empty without one)
  std::optional<FrontPicks> picks;
  std::string recommendation;               // one sentence: which row to choose and why, with the numbers
  std::vector<Fact> job;                    // token budget, precision, model, GPU types with calibration status
  std::vector<std::string> warnings;        // incomplete search, uncalibrated GPU types on picks, ...
  std::optional<FrontDiff> diff;            // with a baseline
  std::vector<std::string> baseline_differences;   // why the baseline differs: scenario, prices, catalog, version
  bool baseline_of_other_scenario = false;
  std::vector<Fact> provenance;             // tool version, method, seed, counts, timings, created, ...
  std::vector<Fact> rejections;             // reason -> count, largest first
  std::vector<std::string> gpu_types;       // distinct GPU labels of both files, sorted: the colour order
  bool complete = true;
};

// Throws ResultsError when a row lacks a column the report needs (results/README.md lists them).
ReportModel build_report_model(const ReportInput& input);

// The colour of a GPU label: the Okabe-Ito palette (readable with colour-vision deficiencies) in gpu_types order.
std::string gpu_color(const ReportModel& model, const std::string& gpu);
// "1.03M tokens/s", "174.0 days": a value of the speed axis with its unit.
std::string speed_text(const PickAxes& axes, double value);
// "$8.12M", or the cost axis' value with its unit.
std::string cost_text(const PickAxes& axes, double value);
// "moe_fp8, moe_many_local_experts": the names of a row's warning bits, in the table's order; "" for none.
std::string warning_names(std::uint32_t bits);

}  // namespace shardmeter::results
