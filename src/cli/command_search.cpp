// `shardmeter search SCENARIO [options]`: search the scenario's `search:` space for its Pareto front, print the
// front and a summary, and write the requested files (HDF5, CSV, JSON; all atomic).
//
// Exit status: 0 when the search ran (an empty front is a result, explained on stdout); 2 for bad input
// (ScenarioError, UsageError, an output that cannot be written); 130 after Ctrl-C, once the front found so far
// has been printed and written with complete = false.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <filesystem>
#include <tuple>
#include <ctime>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "results/errors.hpp"
#include "results/front/objective.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/text/clock_text.hpp"
#include "src/text/front_table.hpp"
#include "src/text/progress_bar.hpp"
#include "src/planning/search_job.hpp"
#include "src/text/search_summary.hpp"
#include "src/text/text_format.hpp"

namespace shardmeter::cli {

namespace {

constexpr int kInterruptedStatus = 130;   // 128 + SIGINT, as shells report a process ended by Ctrl-C

// Set by the SIGINT handler: a lock-free atomic store is async-signal-safe.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_sigint(int) { g_interrupted.store(true, std::memory_order_relaxed); }

// Ctrl-C asks the search to stop (the engines poll the flag every few hundred candidates) for as long as this
// object lives; the previous handler is restored afterwards.
class SigintGuard {
public:
  SigintGuard() {
    g_interrupted.store(false);
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    installed_ = sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~SigintGuard() {
    if (installed_) sigaction(SIGINT, &previous_, nullptr);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

// -o writes HDF5, --csv CSV, --json JSON: a file name whose extension says another format is refused rather than
// silently written in the wrong one.
void check_extensions(const CommandLine& line, const SearchJobOptions& o) {
  const auto ext = [](const std::string& path) {
    std::string e = std::filesystem::path(path).extension().string();
    for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return e;
  };
  if (!o.output_h5.empty() && ext(o.output_h5) != ".h5" && ext(o.output_h5) != ".hdf5") {
    const std::string e = ext(o.output_h5);
    const std::string hint = e == ".csv" ? " (use --csv " + o.output_h5 + ")" : e == ".json" ? " (use --json " + o.output_h5 + ")" : "";
    throw line.usage("-o " + o.output_h5 + ": -o writes HDF5 and needs a .h5 or .hdf5 name" + hint);
  }
  for (const auto& [option, path, other] : {std::tuple{"--csv", o.output_csv, ".json"}, std::tuple{"--json", o.output_json, ".csv"}}) {
    const std::string e = ext(path);
    if (!path.empty() && (e == ".h5" || e == ".hdf5" || e == other))
      throw line.usage(std::string(option) + " " + path + ": the name says another format than " + (option + 2));
  }
}

SearchJobOptions job_options(const CommandLine& line, const std::string& scenario) {
  SearchJobOptions o;
  o.scenario_path = scenario;
  o.overrides = line.overrides();
  o.output_h5 = line.output();
  o.output_csv = line.text("csv");
  o.output_json = line.text("json");
  const std::string method = line.text("method");
  const auto parsed = search::parse_method(method);
  if (!parsed) throw line.usage("--method " + method + " is not one of auto, exhaustive, anneal");
  o.method = *parsed;
  o.threads = line.threads();
  o.seed = static_cast<std::uint64_t>(line.integer("seed"));
  o.visit_budget = static_cast<std::uint64_t>(line.integer("evaluations"));
  if (line.has("time-limit")) o.time_limit_s = line.number("time-limit");
  o.write_all = line.flag("all");
  if (o.write_all && o.output_h5.empty()) throw line.usage("--all needs -o FILE.h5 (it writes /all into the HDF5 file)");
  check_extensions(line, o);
  o.created = utc_now_iso8601();
  return o;
}

}  // namespace

int run_search(const std::vector<std::string>& args, std::ostream& out) {
  const SearchJobOptions defaults;
  CommandLine line(*find_command("search"));
  line.add(SharedOption::set).add(SharedOption::data_dir);
  line.output("FILE.h5", "write the front (and --all) to this HDF5 file");
  line.text("method", "M", "auto | exhaustive | anneal", std::string(search::to_string(defaults.method)));
  line.add(SharedOption::threads);
  line.integer("seed", "S", "annealing seed", Range::at_least(0), static_cast<std::int64_t>(defaults.seed));
  line.integer("evaluations", "N", "annealing budget: candidates to visit", Range::at_least(1),
               static_cast<std::int64_t>(defaults.visit_budget));
  line.number("time-limit", "S", "stop after S seconds (the front is then marked incomplete)", Range::at_least(0));
  line.flag("all", "also write every feasible candidate to /all of the HDF5 file");
  line.text("csv", "FILE", "write the front as CSV");
  line.text("json", "FILE", "write the front and the run's provenance as JSON");
  line.flag("quiet,q", "no progress bar (it is drawn on a terminal for searches longer than 1 s)");
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    out << "\nExit status: 0 when the search ran (an empty front included), 2 for bad input, 130 after Ctrl-C\n"
           "(the front found so far is printed and written, marked complete = false).\n";
    return 0;
  }
  SearchJobOptions job_opts = job_options(line, line.single_positional("SCENARIO", "a YAML file with a search: section"));
  ProgressBar bar(stderr);
  if (!line.flag("quiet") && ::isatty(STDERR_FILENO) == 1) {
    job_opts.progress = [&bar](std::uint64_t done, std::uint64_t total) { bar.update(done, total); };
    job_opts.search_done = [&bar] { bar.finish(); };
  }

  SearchJobResult job;
  {
    // From here on Ctrl-C never kills the process: a search it interrupts still writes what it found.
    const SigintGuard guard;
    const Catalog catalog = load_catalog(line.data_dir());
    try {
      job = run_search_job(job_opts, catalog, g_interrupted);
    } catch (const results::ResultsError& e) {
      throw UsageError(std::string("shardmeter search: ") + e.what());
    }
  }
  const bool interrupted = g_interrupted.load() && !job.result.complete;

  out << fmt::format("shardmeter search: {}\n", job.scenario.name);
  if (!job.front.empty()) {
    out << fmt::format("\nPareto front: {} plans, cheapest first ({})\n\n", job.front.size(),
                       results::describe_objectives(job.info.objectives));
    const std::vector<std::string> uncalibrated = job.info.uncalibrated_gpus.value_or(std::vector<std::string>{});
    out << format_front_table(job.front, job.info.objectives, uncalibrated);
    if (!uncalibrated.empty())
      out << "* uncalibrated GPU type (" << fmt::format("{}", fmt::join(uncalibrated, ", "))
          << "): no published run fits its efficiency constants; its figures are extrapolated (docs/accuracy.md)\n";
  }
  out << "\n" << format_search_summary(job, interrupted);
  if (job.front.empty()) out << "\n" << explain_empty_front(job);
  std::string written;
  for (const std::string* path : {&job_opts.output_h5, &job_opts.output_csv, &job_opts.output_json})
    if (!path->empty()) written += (written.empty() ? "" : ", ") + *path;
  if (!written.empty()) out << fmt::format("\nWrote {}\n", written);
  return interrupted ? kInterruptedStatus : 0;
}

}  // namespace shardmeter::cli
