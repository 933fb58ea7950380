#pragma once
// The nightly run's index page (RESULTS_DIR/<date>/index.html): one row per scenario with its status, front
// size, cheapest cost, fastest throughput, change against its baseline, and links to its report, Markdown and
// front file. Self-contained, well-formed XHTML-compatible markup like the reports.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace shardmeter::results {

enum class ScenarioStatus { ok, failed, skipped };
std::string_view to_string(ScenarioStatus status) noexcept;   // "ok", "failed", "skipped"

struct IndexEntry {
  std::string scenario;                         // file stem: the name of its files in the date directory
  std::string scenario_name;                    // `name:` inside the file ("" when unknown)
  ScenarioStatus status = ScenarioStatus::ok;
  std::string message;                          // why it failed or was skipped; warnings for ok rows
  std::size_t front_size = 0;
  std::optional<double> cheapest_cost_usd;
  std::optional<double> fastest_tokens_per_s;
  std::string baseline_date;                    // "" = no baseline
  std::optional<double> cheapest_cost_change;   // relative, against the baseline
  std::optional<double> fastest_throughput_change;
  std::size_t joined = 0;
  std::size_t left = 0;
  bool complete = true;
  double elapsed_s = 0;                         // search time
  std::string html, markdown, front;            // links relative to the index ("" = no such file)
};

struct IndexPage {
  std::string date;                             // YYYY-MM-DD
  std::string scenario_dir;                     // where the scenarios came from
  std::string prices_file;                      // "" = catalog prices
  std::string generator;                        // "shardmeter 0.1.0"
  std::string created;                          // ISO 8601
  std::vector<IndexEntry> entries;              // in scenario order
};

std::string render_index_html(const IndexPage& page);

}  // namespace shardmeter::results
