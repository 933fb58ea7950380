// `shardmeter search SCENARIO [options]`: search the scenario's `search:` space for its Pareto front, print the
// front and a summary, and write the requested files (HDF5, CSV, JSON; all atomic).
//
// Exit status: 0 when the search ran (an empty front is a result, explained on stdout); 2 for bad input
// (ScenarioError, UsageError, an output that cannot be written); 130 after Ctrl-C (143 after SIGTERM), once the
// front found so far has been printed and written with complete = false.
//
// Built with MPI and started by an MPI launcher (`mpirun -np N`, `srun`), every rank runs this command and the
// ranks share the search (src/distributed/search_team.hpp); rank 0 alone prints and writes.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <filesystem>
#include <tuple>
#include <ctime>
#include <iostream>
#include <optional>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/spec/enum_names.hpp"
#include "results/errors.hpp"
#include "results/export/framework.hpp"
#include "results/front/objective.hpp"
#include "src/cli/command_catalog.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/path_collisions.hpp"
#include "src/text/clock_text.hpp"
#include "src/text/front_table.hpp"
#include "src/text/progress_bar.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/planning/search_job.hpp"
#include "src/text/search_summary.hpp"
#include "src/text/text_format.hpp"
#ifdef SHARDMETER_WITH_MPI
#include "src/distributed/mpi_world.hpp"
#include "src/distributed/search_team.hpp"
#include "src/text/progress_log.hpp"
#endif

namespace shardmeter::cli {

namespace {

// Set by the SIGINT/SIGTERM handler: lock-free atomic stores are async-signal-safe.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int signal) {
  g_signal.store(signal, std::memory_order_relaxed);
  g_interrupted.store(true, std::memory_order_relaxed);
}

// Ctrl-C (SIGINT) and SIGTERM (a launcher or batch system ending the job) ask the search to stop (the engines
// poll the flag every few hundred candidates) for as long as this object lives; the previous handlers are
// restored afterwards.
class StopSignalGuard {
public:
  StopSignalGuard() {
    g_interrupted.store(false);
    g_signal.store(0);
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    installed_int_ = sigaction(SIGINT, &action, &previous_int_) == 0;
    installed_term_ = sigaction(SIGTERM, &action, &previous_term_) == 0;
  }
  ~StopSignalGuard() {
    if (installed_int_) sigaction(SIGINT, &previous_int_, nullptr);
    if (installed_term_) sigaction(SIGTERM, &previous_term_, nullptr);
  }
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;

private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  bool installed_int_ = false;
  bool installed_term_ = false;
};

// -o writes HDF5, --csv CSV, --json JSON: a file name whose extension says another format is refused rather than
// silently written in the wrong one.
void check_extensions(const CommandLine& line, const SearchJobOptions& o) {
  const auto ext = [](const std::string& path) {
    std::string e = std::filesystem::path(path).extension().string();
    for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return e;
  };
  // A device or pipe (-o /dev/full) is the output safety checks' business, whatever its name.
  const auto regular_or_new = [](const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    return ec || !std::filesystem::exists(status) || std::filesystem::is_regular_file(status);
  };
  if (!o.output_h5.empty() && regular_or_new(o.output_h5) && ext(o.output_h5) != ".h5" && ext(o.output_h5) != ".hdf5") {
    const std::string e = ext(o.output_h5);
    const std::string hint = e == ".csv" ? " (use --csv " + o.output_h5 + ")" : e == ".json" ? " (use --json " + o.output_h5 + ")" : "";
    throw line.usage("-o " + o.output_h5 + ": -o writes HDF5 and needs a .h5 or .hdf5 name" + hint);
  }
  for (const auto& [option, path, other] : {std::tuple{"--csv", o.output_csv, ".json"}, std::tuple{"--json", o.output_json, ".csv"}}) {
    const std::string e = ext(path);
    if (!path.empty() && regular_or_new(path) && (e == ".h5" || e == ".hdf5" || e == other))
      throw line.usage(std::string(option) + " " + path + ": the name says another format than " + (option + 2));
  }
}

// 128 + the signal, as shells report a process a signal ended.
int interrupted_status() { return 128 + (g_signal.load() != 0 ? g_signal.load() : SIGINT); }

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
  o.created = utc_now_iso8601();
  o.framework = line.text("framework");
  if (!o.framework.empty() && results::find_framework(o.framework) == nullptr)
    throw line.usage("--framework " + o.framework + " is not one of " + results::framework_names());
  return o;
}

}  // namespace

int run_search(const std::vector<std::string>& args, std::ostream& out) {
  const SearchJobOptions defaults;
  CommandLine line(*find_command("search"));
  line.add(SharedOption::set).add(SharedOption::data_dir).add(SharedOption::prices);
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
  line.text("framework", "NAME",
            "keep only plans this framework can run, on its stack: torchtitan | torchtitan-py | megatron | deepspeed | "
            "torchrun (overrides search.framework)");
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    out << "\nExit status: 0 when the search ran (an empty front included), 2 for bad input, 130 after Ctrl-C,\n"
           "143 after SIGTERM (the front found so far is printed and written, marked complete = false).\n"
           "Under mpirun/srun (when built with MPI) the ranks share the search; see docs/scale.md.\n";
    return 0;
  }
  SearchJobOptions job_opts = job_options(line, line.single_positional("SCENARIO", "a YAML file with a search: section"));
  std::vector<PathUse> inputs = catalog_inputs(line.data_dir(), line.has("prices") ? line.text("prices") : "");
  inputs.insert(inputs.begin(), PathUse{"SCENARIO", job_opts.scenario_path});
  check_path_collisions("search", inputs,
                        {{"-o", job_opts.output_h5}, {"--csv", job_opts.output_csv}, {"--json", job_opts.output_json}});
  check_extensions(line, job_opts);
  ProgressBar bar(stderr);
  if (!line.flag("quiet") && ::isatty(STDERR_FILENO) == 1) {
    job_opts.progress = [&bar](std::uint64_t done, std::uint64_t total) { bar.update(done, total); };
    job_opts.search_done = [&bar] { bar.finish(); };
  }

  SearchJobResult job;
  // The exit status when the search was interrupted before it started (nothing written), else -1.
  const auto run_job = [&]() -> int {
    // From here on Ctrl-C never kills the process: a search it interrupts still writes what it found.
    const StopSignalGuard guard;
    const Catalog catalog = load_command_catalog(line);
    try {
      job = run_search_job(job_opts, catalog, g_interrupted);
    } catch (const Interrupted&) {
      std::cerr << "shardmeter search: interrupted (" << (g_signal.load() == SIGTERM ? "SIGTERM" : "Ctrl-C")
                << ") while building the search space; nothing was written\n";
      return interrupted_status();
    } catch (const results::ResultsError& e) {
      throw UsageError(std::string("shardmeter search: ") + e.what());
    }
    return -1;
  };
#ifdef SHARDMETER_WITH_MPI
  std::optional<distributed::MpiWorld> world;
  std::optional<distributed::SearchTeam> team;
  std::optional<ProgressLog> log;
  if (distributed::launched_by_mpi()) {
    world.emplace();
    if (world->size() > 1) {
      team.emplace(*world, job_opts.write_all);
      job_opts.team = team->hooks();
      job_opts.progress = {};
      job_opts.search_done = {};
      // The launcher pipes the ranks' stderr, so no bar: rank 0 logs the job's progress every 10 s instead.
      if (world->rank() == 0 && !line.flag("quiet")) {
        log.emplace(stderr, fmt::format("candidates on {} MPI ranks", world->size()));
        job_opts.progress = [&log](std::uint64_t done, std::uint64_t total) { log->update(done, total); };
      }
    }
  }
  if (team) {
    // A rank that returned on an error would leave the others waiting in MPI: end them all.
    try {
      if (const int status = run_job(); status >= 0)
        world->abort("shardmeter search: interrupted while building the search space; nothing was written", status);
    } catch (const ScenarioError& e) {
      world->abort(e.what(), 2);
    } catch (const InputError& e) {
      world->abort(e.what(), 2);
    } catch (const UsageError& e) {
      world->abort(e.what(), 2);
    } catch (const std::exception& e) {
      world->abort((std::string("shardmeter: internal error: ") + e.what()).c_str(), 1);
    }
    if (world->rank() != 0) return g_interrupted.load() && !job.result.complete ? interrupted_status() : 0;
  } else if (const int status = run_job(); status >= 0) {
    return status;
  }
#else
  if (const int status = run_job(); status >= 0) return status;
#endif
  // Under MPI another rank may have been the one signalled (it stopped this one): without a time limit, that is
  // the only other way a search ends incomplete.
  const bool interrupted = !job.result.complete &&
                           (g_interrupted.load() || (job.result.ranks > 1 && job_opts.time_limit_s == 0));

  out << fmt::format("shardmeter search: {}\n", job.scenario.name);
  if (!job.front.empty()) {
    out << fmt::format("\nPareto front: {} plans, cheapest first ({})\n\n", job.front.size(),
                       results::describe_objectives(job.info.objectives));
    out << format_front_table(job.front, job.info.objectives,
                              job.info.uncalibrated_gpu_stacks.value_or(std::vector<std::string>{}));
    if (!job.uncalibrated_legend.empty())
      out << "* uncalibrated GPU type (" << fmt::format("{}", fmt::join(job.uncalibrated_legend, ", "))
          << "): no published run fits its efficiency constants on the row's stack; its figures are extrapolated "
             "(docs/accuracy.md)\n";
    out << format_front_warnings(job.front);
  }
  if (!job.framework.empty()) {
    // What the framework filter kept and why it excluded the rest (docs/search.md, "Searching for a framework").
    std::uint64_t excluded = 0;
    for (const auto& [reason, count] : job.framework_excluded) excluded += count;
    const results::Framework* f = results::find_framework(job.framework);
    out << fmt::format("\nFramework {} ({}): {} feasible plans it can run; {} excluded, as its export refuses them:\n",
                       job.framework,
                       f != nullptr && f->stack ? "costed on " + std::string(model::enum_name(*f->stack))
                                                : std::string("the scenario's stack"),
                       grouped(static_cast<double>(job.framework_kept)), grouped(static_cast<double>(excluded)));
    for (const auto& [reason, count] : job.framework_excluded)
      out << fmt::format("  {:>12}  {}\n", grouped(static_cast<double>(count)), reason);
  }
  out << "\n" << format_search_summary(job, interrupted);
  if (job.front.empty()) out << "\n" << explain_empty_front(job);
  std::string written;
  for (const std::string* path : {&job_opts.output_h5, &job_opts.output_csv, &job_opts.output_json})
    if (!path->empty()) written += (written.empty() ? "" : ", ") + *path;
  if (!written.empty()) out << fmt::format("\nWrote {}\n", written);
  return interrupted ? interrupted_status() : 0;
}

}  // namespace shardmeter::cli
