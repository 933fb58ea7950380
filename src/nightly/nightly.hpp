#pragma once
// `shardmeter nightly`: the pieces around the searches, kept apart from them so they are testable with fronts
// written by the results writers. Layout of a run (docs/reports.md, "nightly"):
//   RESULTS_DIR/<date>/<scenario>.h5, <scenario>.html, <scenario>.md   one set per scenario (file stem)
//   RESULTS_DIR/<date>/index.html                                     every scenario with its status
// Each scenario is compared with the newest earlier date directory of RESULTS_DIR that holds its front.
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/report/nightly_index.hpp"

namespace shardmeter::cli {

// A *.yaml file of the scenario directory.
struct NightlyScenario {
  std::string stem;          // file name without .yaml: names its outputs
  std::string path;
  std::string name;          // its `name:` ("" when unreadable)
  bool has_search = false;   // has a `search:` section (only those run)
  std::string problem;       // why the file cannot be read ("" = readable)
};
// The *.yaml files of `dir` (not recursive), sorted by file name. Unreadable files come back with `problem` set.
// Throws InputError when `dir` is not a directory.
std::vector<NightlyScenario> discover_scenarios(const std::string& dir);

// What happened to one scenario's search (input of publish_nightly).
struct SearchOutcome {
  std::string stem;
  std::string scenario_name;
  results::ScenarioStatus status = results::ScenarioStatus::ok;   // ok: <date>/<stem>.h5 was written
  std::string message;       // failed: the error; skipped: the reason
  double elapsed_s = 0;
};

struct NightlySettings {
  std::filesystem::path results_dir;
  std::string date;          // YYYY-MM-DD
  std::string scenario_dir;  // for the index page
  std::string prices_file;   // "" = catalog prices
  std::string generator;     // "shardmeter 0.1.0"
  std::string created;       // ISO 8601
};

struct NightlyPublished {
  std::vector<results::IndexEntry> entries;
  std::filesystem::path index;   // "" when the index could not be written
  bool any_failed = false;       // a scenario failed, or the index could not be written
};

// After the searches: for every ok scenario reads <date>/<stem>.h5 and its baseline, writes <stem>.html and
// <stem>.md; then writes index.html over every outcome. A scenario whose front or report fails becomes failed;
// the others go on. Progress and errors go to `log`, one line each.
NightlyPublished publish_nightly(const NightlySettings& settings, const std::vector<SearchOutcome>& outcomes,
                                 std::ostream& log);

// The newest directory of `results_dir` named YYYY-MM-DD, earlier than `date`, that holds <stem>.h5.
std::optional<std::string> find_baseline_date(const std::filesystem::path& results_dir, const std::string& date,
                                              const std::string& stem);

// YYYY-MM-DD naming a real calendar day (Gregorian leap years).
bool valid_date(std::string_view text);

}  // namespace shardmeter::cli
