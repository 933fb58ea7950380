#pragma once
// What a report shows, computed once from the result files so the HTML and Markdown renderers (and the nightly
// index) say the same thing: the front's rows as display text, the cheapest / knee / fastest picks, the baseline
// comparison and the provenance. Pure: no files, no clock.
#include <optional>
#include <string>
#include <vector>

#include "results/report/front_diff.hpp"
#include "results/front/front_picks.hpp"
#include "results/front/row.hpp"

namespace shardmeter::results {

struct ReportInput {
  const ResultFile* front = nullptr;        // required
  std::string front_label;                  // how the report names it: a path or a date
  const ResultFile* baseline = nullptr;     // optional: an earlier front of the same scenario
  std::string baseline_label;
  std::string generator;                    // footer text, e.g. "shardmeter 0.1.0"
};

// A front row as the report's tables show it.
struct PlanRow {
  std::size_t row = 0;
  std::string gpu;            // gpu_label()
  std::string islands;        // islands_label()
  std::int64_t island_count = 1;
  std::string parallel;       // parallel_label()
  std::string sharding;
  std::string batch;          // "micro / global"
  std::string recompute;
  std::string sync;
  double cost_usd = 0;
  double tokens_per_s = 0;
  double usd_per_effective_million_tokens = 0;   // NaN for files written before the column existed
  double wall_clock_days = 0;
  double mfu = 0;
  double memory_headroom_gb = 0;
  std::string bottleneck;
  std::string summary;        // plan_summary()
  std::vector<std::string> picks;   // "cheapest", "knee", "fastest" (this row's roles)
};

// One (label, value) line of the provenance table.
struct Fact {
  std::string label;
  std::string value;
};

struct ReportModel {
  std::string title;                        // "ShardMeter report: <scenario_name>"
  std::string scenario_name;
  std::string scenario_text;
  std::string front_label, baseline_label, generator;
  std::vector<PlanRow> rows;                // the front, file order
  std::vector<PlanRow> baseline_rows;       // the baseline's front (empty without one)
  std::optional<FrontPicks> picks;
  std::optional<FrontDiff> diff;            // with a baseline
  std::vector<Fact> provenance;             // tool version, method, seed, counts, timings, created, ...
  std::vector<Fact> rejections;             // reason -> count, largest first
  std::vector<std::string> gpu_types;       // distinct GPU labels of both fronts, sorted: the colour order
  bool complete = true;
};

// Throws ResultsError when a row lacks a column the report needs (results/README.md lists them).
ReportModel build_report_model(const ReportInput& input);

// The colour of a GPU label: the Okabe-Ito palette (readable with colour-vision deficiencies) in gpu_types order.
std::string gpu_color(const ReportModel& model, const std::string& gpu);

}  // namespace shardmeter::results
