#include "src/nightly/nightly.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>
#include <new>
#include <ostream>

#include <fmt/format.h>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/report/report_html.hpp"
#include "results/report/report_markdown.hpp"
#include "results/report/report_model.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace fs = std::filesystem;

namespace {

// The index row of an ok scenario, or a failed one when its front or reports cannot be read or written.
results::IndexEntry publish_one(const NightlySettings& s, const SearchOutcome& o, std::ostream& log) {
  results::IndexEntry x;
  x.scenario = o.stem;
  x.scenario_name = o.scenario_name;
  x.status = o.status;
  x.message = o.message;
  x.elapsed_s = o.elapsed_s;
  if (o.status != results::ScenarioStatus::ok) {
    log << (o.status == results::ScenarioStatus::failed ? "nightly: FAILED  " : "nightly: skipped ") << o.stem << ": "
        << o.message << "\n";
    return x;
  }

  const fs::path day = s.results_dir / s.date;
  try {
    const results::ResultFile front = results::read_front(day / (o.stem + ".h5"));
    x.front = o.stem + ".h5";
    std::optional<results::ResultFile> baseline;
    const std::optional<std::string> baseline_date = find_baseline_date(s.results_dir, s.date, o.stem);
    if (baseline_date) {
      try {
        baseline = results::read_front(s.results_dir / *baseline_date / (o.stem + ".h5"));
        x.baseline_date = *baseline_date;
      } catch (const results::ResultsError& e) {
        // A bad baseline is no baseline (issue 33): warned about, and the scenario is published without it.
        x.message = "baseline " + *baseline_date + " not used: " + e.what();
        log << "nightly: warning " << o.stem << ": " << x.message << "\n";
      }
    }
    results::ReportInput input;
    input.front = &front;
    input.front_label = s.date + "/" + o.stem + ".h5";
    input.baseline = baseline ? &*baseline : nullptr;
    input.baseline_label = baseline ? x.baseline_date + "/" + o.stem + ".h5" : "";
    input.generator = s.generator;
    const results::ReportModel model = [&] {
      if (!baseline) return results::build_report_model(input);
      try {
        return results::build_report_model(input);
      } catch (const std::exception& e) {
        // Comparing with a readable but unusable baseline failed: report without it rather than lose the night.
        x.message = "baseline " + x.baseline_date + " not used: the comparison failed: " + e.what();
        log << "nightly: warning " << o.stem << ": " << x.message << "\n";
        x.baseline_date.clear();
        input.baseline = nullptr;
        input.baseline_label.clear();
        return results::build_report_model(input);
      }
    }();
    const std::string html = results::render_report_html(model);
    const std::string markdown = results::render_report_markdown(model);
    results::write_text_atomically(day / (o.stem + ".html"), html);
    x.html = o.stem + ".html";
    results::write_text_atomically(day / (o.stem + ".md"), markdown);
    x.markdown = o.stem + ".md";

    if (x.scenario_name.empty()) x.scenario_name = front.info.scenario_name;
    x.front_size = model.rows.size();
    x.complete = model.complete;
    if (model.picks) {
      x.cheapest_cost_usd = model.rows[model.picks->cheapest].cost;
      x.fastest_tokens_per_s = model.rows[model.picks->fastest].tokens_per_s();
    }
    if (model.diff) {
      x.cheapest_cost_change = model.diff->cheapest_cost_change;
      x.fastest_throughput_change = model.diff->fastest_speed_change;
      x.joined = model.diff->joined.size();
      x.left = model.diff->left.size();
    }
    log << fmt::format("nightly: ok      {} ({} plans{}, search {:.1f} s)\n", o.stem, x.front_size,
                       x.baseline_date.empty() ? "" : ", baseline " + x.baseline_date, o.elapsed_s);
  } catch (const results::ResultsError& e) {
    x.status = results::ScenarioStatus::failed;
    x.message = e.what();
    log << "nightly: FAILED  " << o.stem << ": " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // Any other failure of one scenario's reports fails that scenario only: the night goes on (issue 33).
    x.status = results::ScenarioStatus::failed;
    x.message = std::string("its reports could not be made: ") + e.what();
    log << "nightly: FAILED  " << o.stem << ": " << x.message << "\n";
  }
  return x;
}

}  // namespace

bool valid_date(std::string_view t) {
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return false;
  for (const std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (t[i] < '0' || t[i] > '9') return false;
  const int year = std::stoi(std::string(t.substr(0, 4)));
  const int month = std::stoi(std::string(t.substr(5, 2)));
  const int day = std::stoi(std::string(t.substr(8, 2)));
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}


std::vector<NightlyScenario> discover_scenarios(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError("shardmeter nightly: " + dir + " is not a directory of scenarios");
  std::vector<NightlyScenario> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    NightlyScenario s;
    s.stem = entry.path().stem().string();
    s.path = entry.path().string();
    try {
      std::string text;
      const YAML::Node root = load_yaml_file(s.path, text);
      if (!root.IsMap()) {
        s.problem = s.path + ": is not a scenario (expected a map of keys)";
      } else {
        s.has_search = root["search"].IsDefined() && !root["search"].IsNull();
        if (root["name"].IsScalar()) s.name = root["name"].as<std::string>();
      }
    } catch (const ScenarioError& e) {
      s.problem = e.what();
    }
    found.push_back(std::move(s));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.stem < b.stem; });
  return found;
}

std::optional<std::string> find_baseline_date(const fs::path& results_dir, const std::string& date,
                                              const std::string& stem) {
  std::optional<std::string> best;
  std::error_code ec;
  for (fs::directory_iterator it(results_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // ISO dates order like strings.
    if (!it->is_directory() || !valid_date(name) || name >= date || (best && name <= *best)) continue;
    if (fs::is_regular_file(it->path() / (stem + ".h5"))) best = name;
  }
  return best;
}

NightlyPublished publish_nightly(const NightlySettings& s, const std::vector<SearchOutcome>& outcomes,
                                 std::ostream& log) {
  NightlyPublished published;
  for (const SearchOutcome& o : outcomes) {
    published.entries.push_back(publish_one(s, o, log));
    if (published.entries.back().status == results::ScenarioStatus::failed) published.any_failed = true;
  }
  results::IndexPage page;
  page.date = s.date;
  page.scenario_dir = s.scenario_dir;
  page.prices_file = s.prices_file;
  page.generator = s.generator;
  page.created = s.created;
  page.entries = published.entries;
  const fs::path index = s.results_dir / s.date / "index.html";
  try {
    results::write_text_atomically(index, results::render_index_html(page));
    published.index = index;
  } catch (const results::ResultsError& e) {
    log << "nightly: FAILED  index: " << e.what() << "\n";
    published.any_failed = true;
  }
  return published;
}

}  // namespace shardmeter::cli
