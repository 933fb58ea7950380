#include "src/planning/search_job.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "results/files/atomic_file.hpp"
#include "results/files/csv.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/json.hpp"
#include "search/search.hpp"
#include "src/planning/search_section.hpp"
#include "src/planning/search_space.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/version.hpp"

namespace shardmeter::cli {

namespace {

// Fails before the search rather than after it when an output cannot be written (missing directory).
void check_output_paths(const SearchJobOptions& o) {
  for (const std::string* path : {&o.output_h5, &o.output_csv, &o.output_json})
    if (!path->empty()) results::AtomicFile probe(*path);  // creates nothing; throws OutputError
}

// The boundary between the search and the result files: the search's points (its front, its --all records) become
// results::PlanPoint here and nowhere else.
results::PlanPoint plan_point(const search::FrontPoint& p) {
  return results::PlanPoint{p.scenario, p.estimate, p.index, p.labels};
}
results::PlanPoint plan_point(const search::Space& space, const search::CandidateRecord& r) {
  return results::PlanPoint{space.scenario(r.index), r.estimate, r.index, space.labels(r.index)};
}

// Runs the search in an arena of `threads` workers (0: all hardware threads).
search::SearchResult run_in_arena(int threads, const search::Space& space, const search::Goal& goal,
                                  const search::SearchOptions& options, std::atomic<bool>& stop) {
  std::optional<tbb::global_control> allow;
  if (threads > tbb::info::default_concurrency())
    allow.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  search::SearchResult result;
  arena.execute([&] { result = search::search(space, goal, options, stop); });
  return result;
}

}  // namespace

SearchJobResult run_search_job(const SearchJobOptions& options, const Catalog& catalog, std::atomic<bool>& stop) {
  SearchJobResult job;
  job.scenario = load_scenario(options.scenario_path, options.overrides, catalog);
  const SearchSection section = read_search_section(job.scenario.doc, catalog, job.scenario.scenario);
  const search::Space space = build_search_space(job.scenario, section, catalog);
  const search::Goal goal = make_goal(section);
  check_output_paths(options);

  std::vector<std::string> axis_names;
  for (int a = 0; a < space.axis_count(); ++a) axis_names.push_back(space.axis(a).name);
  const results::RowLayout layout(max_island_entries(space), axis_names, longest_label(space));

  search::SearchOptions so;
  so.method = options.method;
  so.seed = options.seed;
  so.visit_budget = options.visit_budget;
  so.time_limit_s = options.time_limit_s;

  // --all: /all is streamed while the search runs. The engine calls the sink serially; the lock keeps the
  // (non-thread-safe) HDF5 writer serialised even if that ever changed.
  std::unique_ptr<results::FrontWriter> writer;
  std::mutex writer_mutex;
  if (options.write_all && !options.output_h5.empty()) {
    writer = std::make_unique<results::FrontWriter>(options.output_h5, layout, results::WriterOptions{.write_all = true});
    so.sink = [&](std::span<const search::CandidateRecord> batch) {
      std::vector<results::PlanPoint> points;
      points.reserve(batch.size());
      for (const search::CandidateRecord& r : batch)
        points.push_back(plan_point(space, r));
      const std::lock_guard lock(writer_mutex);
      writer->append_all(points);
    };
  }
  so.progress = options.progress;

  job.result = run_in_arena(options.threads, space, goal, so, stop);
  if (options.search_done) options.search_done();

  // The front, cheapest first (the search sorts by its first objective, which need not be cost).
  for (const search::FrontPoint& p : job.result.front) job.front.push_back(plan_point(p));
  std::stable_sort(job.front.begin(), job.front.end(), [](const results::PlanPoint& a, const results::PlanPoint& b) {
    return a.estimate.total_cost_usd < b.estimate.total_cost_usd;
  });

  const search::SearchCounts& c = job.result.counts;
  results::RunInfo& info = job.info;
  info.scenario_text = effective_text(job.scenario.doc);
  info.scenario_name = job.scenario.name;
  info.version = version();
  info.method = std::string(search::to_string(job.result.method));
  info.seed = job.result.seed;
  info.threads = job.result.threads;
  info.space_size = c.space_size;
  info.visited = c.visited;
  info.estimated = c.estimated;
  info.feasible = c.feasible;
  for (const auto& [reason, count] : c.rejections()) info.rejected[reason] = count;
  info.elapsed_s = job.result.elapsed_s;
  info.complete = job.result.complete;
  info.objectives = job.result.objectives;
  info.axes = axis_names;
  info.created = options.created;
  // The GPU types of the front's rows whose constants no published run fits: the report, the export headers and the
  // search table flag them.
  std::vector<std::string> gpus;
  const auto add_gpus = [&gpus](const model::Scenario& s) {
    for (int i = 0; i < s.cluster.island_entries; ++i)
      gpus.emplace_back(s.cluster.islands[static_cast<std::size_t>(i)].gpu.name.view());
  };
  for (const results::PlanPoint& p : job.front) add_gpus(p.scenario);
  info.uncalibrated_gpus = uncalibrated_among(catalog, gpus);

  if (!options.output_h5.empty()) {
    if (!writer) writer = std::make_unique<results::FrontWriter>(options.output_h5, layout);
    writer->finish(info, job.front);
  }
  if (!options.output_csv.empty() || !options.output_json.empty()) {
    const results::Table table = layout.table(job.front);
    if (!options.output_csv.empty()) results::write_csv(options.output_csv, table);
    if (!options.output_json.empty()) results::write_json(options.output_json, info, table);
  }
  return job;
}

}  // namespace shardmeter::cli
