// `shardmeter search SCENARIO [options]`: search the scenario's `search:` space for its Pareto front, print the
// front and a summary, and write the requested files (HDF5, CSV, JSON; all atomic).
//
// Exit status: 0 when the search ran (an empty front is a result, explained on stdout); 2 for bad input
// (ScenarioError, UsageError, an output that cannot be written); 130 after Ctrl-C, once the front found so far
// has been printed and written with complete = false.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <ctime>
#include <ostream>

#include <fmt/format.h>

#include "results/errors.hpp"
#include "results/front/objective.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/commands.hpp"
#include "src/text/front_table.hpp"
#include "src/text/progress_bar.hpp"
#include "src/planning/search_job.hpp"
#include "src/text/search_summary.hpp"
#include "src/text/text_format.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

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

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

template <class T>
T option(const po::variables_map& vm, const char* name, T fallback) {
  return vm.count(name) ? vm[name].as<T>() : fallback;
}

SearchJobOptions job_options(const po::variables_map& vm, const std::string& scenario) {
  const auto usage = [](const std::string& problem) {
    return UsageError("shardmeter search: " + problem + " (see shardmeter search --help)");
  };
  SearchJobOptions o;
  o.scenario_path = scenario;
  o.overrides = scenario_overrides(vm);
  o.output_h5 = option<std::string>(vm, "output", "");
  o.output_csv = option<std::string>(vm, "csv", "");
  o.output_json = option<std::string>(vm, "json", "");
  const std::string method = option<std::string>(vm, "method", "auto");
  const auto parsed = search::parse_method(method);
  if (!parsed) throw usage("--method " + method + " is not one of auto, exhaustive, anneal");
  o.method = *parsed;
  o.threads = option<int>(vm, "threads", 0);
  if (o.threads < 0 || o.threads > 1024) throw usage("--threads must be between 0 (all cores) and 1024");
  o.seed = option<std::uint64_t>(vm, "seed", 0);
  const std::int64_t evaluations = option<std::int64_t>(vm, "evaluations", static_cast<std::int64_t>(o.visit_budget));
  if (evaluations < 1) throw usage("--evaluations must be at least 1");
  o.visit_budget = static_cast<std::uint64_t>(evaluations);
  o.time_limit_s = option<double>(vm, "time-limit", 0.0);
  if (!std::isfinite(o.time_limit_s) || o.time_limit_s < 0) throw usage("--time-limit must be a number of seconds >= 0");
  o.write_all = vm["all"].as<bool>();
  if (o.write_all && o.output_h5.empty()) throw usage("--all needs -o FILE.h5 (it writes /all into the HDF5 file)");
  o.created = utc_now_iso8601();
  return o;
}

}  // namespace

int run_search(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("search");
  po::options_description options("Options");
  add_scenario_options(options);
  options.add_options()
      ("output,o", po::value<std::string>()->value_name("FILE.h5"), "write the front (and --all) to this HDF5 file")
      ("method", po::value<std::string>()->value_name("M"), "auto (default) | exhaustive | anneal")
      ("threads", po::value<int>()->value_name("N"), "worker threads (default 0 = all cores); the front is the same for any N")
      ("seed", po::value<std::uint64_t>()->value_name("S"), "annealing seed (default 0)")
      ("evaluations", po::value<std::int64_t>()->value_name("N"), "annealing budget: candidates to visit (default 200000)")
      ("time-limit", po::value<double>()->value_name("S"), "stop after S seconds (the front is then marked incomplete)")
      ("all", po::bool_switch(), "also write every feasible candidate to /all of the HDF5 file")
      ("csv", po::value<std::string>()->value_name("FILE"), "write the front as CSV")
      ("json", po::value<std::string>()->value_name("FILE"), "write the front and the run's provenance as JSON")
      ("quiet,q", po::bool_switch(), "no progress bar (it is drawn on a terminal for searches longer than 1 s)")
      ("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "scenario");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    out << "\nExit status: 0 when the search ran (an empty front included), 2 for bad input, 130 after Ctrl-C\n"
           "(the front found so far is printed and written, marked complete = false).\n";
    return 0;
  }
  SearchJobOptions job_opts = job_options(vm, single_scenario(command, vm, "a YAML file with a search: section"));
  ProgressBar bar(stderr);
  if (!vm["quiet"].as<bool>() && ::isatty(STDERR_FILENO) == 1) {
    job_opts.progress = [&bar](std::uint64_t done, std::uint64_t total) { bar.update(done, total); };
    job_opts.search_done = [&bar] { bar.finish(); };
  }

  SearchJobResult job;
  {
    // From here on Ctrl-C never kills the process: a search it interrupts still writes what it found.
    const SigintGuard guard;
    const Catalog catalog = load_catalog(data_dir_option(vm));
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
    out << format_front_table(job.front, job.info.objectives);
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
