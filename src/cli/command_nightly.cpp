// `shardmeter nightly DIR_OF_SCENARIOS --out RESULTS_DIR [--prices prices.yaml] [--date YYYY-MM-DD] [--threads N]`:
// runs the search of every scenario in DIR that has a `search:` section, then writes each one's report and the
// day's index (src/nightly/nightly.hpp). A failing scenario is reported and the others go on.
// Exit status: 0 every scenario ok (skipped ones included), 1 a scenario (or the index) failed, 2 bad command line
// or prices file.
//
// Built with MPI and started by an MPI launcher, the scenarios are dealt over the ranks and rank 0 writes the
// reports and the index (src/distributed/nightly_team.hpp).
#include <atomic>
#include <chrono>
#include <iostream>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "results/errors.hpp"
#include "src/cli/command_catalog.hpp"
#include "src/cli/command_line.hpp"
#include "src/text/clock_text.hpp"
#include "src/cli/commands.hpp"
#include "src/nightly/nightly.hpp"
#include "src/planning/search_job.hpp"
#include "src/scenario/version.hpp"
#ifdef SHARDMETER_WITH_MPI
#include "src/distributed/mpi_world.hpp"
#include "src/distributed/nightly_team.hpp"
#endif

namespace shardmeter::cli {

namespace {

SearchOutcome run_one(const NightlyScenario& s, const std::filesystem::path& day, const Catalog& catalog, int threads,
                      const std::string& created, std::atomic<bool>& stop) {
  SearchOutcome o;
  o.stem = s.stem;
  o.scenario_name = s.name;
  if (!s.problem.empty()) {
    o.status = results::ScenarioStatus::failed;
    o.message = s.problem;
    return o;
  }
  if (!s.has_search) {
    o.status = results::ScenarioStatus::skipped;
    o.message = "no search: section";
    return o;
  }
  SearchJobOptions options;
  options.scenario_path = s.path;
  options.output_h5 = (day / (s.stem + ".h5")).string();
  options.threads = threads;
  options.created = created;
  const auto start = std::chrono::steady_clock::now();
  try {
    std::cerr << "nightly: running " << s.stem << "\n";
    const SearchJobResult r = run_search_job(options, catalog, stop);
    if (o.scenario_name.empty()) o.scenario_name = r.info.scenario_name;
  } catch (const ScenarioError& e) {
    o.status = results::ScenarioStatus::failed;
    o.message = e.what();
  } catch (const std::exception& e) {   // results::OutputError (cannot write) and anything the search throws
    o.status = results::ScenarioStatus::failed;
    o.message = e.what();
  }
  o.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

}  // namespace

int run_nightly(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("nightly"));
  line.text("out", "RESULTS_DIR",
            "required: results go to RESULTS_DIR/<date>/ (created); earlier dates there are the baselines");
  line.add(SharedOption::prices);
  line.text("date", "YYYY-MM-DD", "the run's date directory (default: today, UTC)");
  line.add(SharedOption::threads).add(SharedOption::data_dir);
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    out << "\nExit status: 0 all scenarios ok, 1 a scenario failed (the others still ran), 2 bad command line or "
           "prices file.\n";
    return 0;
  }
  const std::string scenario_dir = line.single_positional("DIR_OF_SCENARIOS");
  if (!line.has("out")) throw UsageError("shardmeter nightly: missing --out RESULTS_DIR");
  const std::string date = line.has("date") ? line.text("date") : utc_today();
  if (!valid_date(date)) throw UsageError("shardmeter nightly: --date " + date + " is not a date (YYYY-MM-DD)");
  const int threads = line.threads();

  const Catalog catalog = load_command_catalog(line);
  const std::string prices = line.text("prices");
  const std::vector<NightlyScenario> scenarios = discover_scenarios(scenario_dir);

  NightlySettings settings;
  settings.results_dir = line.text("out");
  settings.date = date;
  settings.scenario_dir = scenario_dir;
  settings.prices_file = prices;
  settings.generator = std::string("shardmeter ") + version();
  settings.created = utc_now_iso8601();
  const std::filesystem::path day = settings.results_dir / date;
  std::error_code ec;
  std::filesystem::create_directories(day, ec);
  if (ec) throw UsageError("shardmeter nightly: cannot create " + day.string() + ": " + ec.message());

  std::atomic<bool> stop{false};
  std::vector<SearchOutcome> outcomes;
#ifdef SHARDMETER_WITH_MPI
  std::optional<distributed::MpiWorld> world;
  if (distributed::launched_by_mpi()) world.emplace();
  if (world && world->size() > 1) {
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      if (distributed::runs_here(*world, i))
        outcomes.push_back(run_one(scenarios[i], day, catalog, threads, settings.created, stop));
    outcomes = distributed::gather_outcomes(*world, outcomes, scenarios.size());
    if (world->rank() != 0) return 0;   // rank 0 reports for every rank
  } else {
    for (const NightlyScenario& s : scenarios)
      outcomes.push_back(run_one(s, day, catalog, threads, settings.created, stop));
  }
#else
  for (const NightlyScenario& s : scenarios) outcomes.push_back(run_one(s, day, catalog, threads, settings.created, stop));
#endif
  const NightlyPublished published = publish_nightly(settings, outcomes, std::cerr);

  std::size_t ok = 0, failed = 0, skipped = 0;
  for (const results::IndexEntry& x : published.entries)
    (x.status == results::ScenarioStatus::ok ? ok : x.status == results::ScenarioStatus::failed ? failed : skipped)++;
  out << fmt::format("nightly {}: {} scenarios: {} ok, {} failed, {} skipped; index: {}\n", date,
                     published.entries.size(), ok, failed, skipped,
                     published.index.empty() ? "not written" : published.index.string());
  return published.any_failed ? 1 : 0;
}

}  // namespace shardmeter::cli
