#include "src/planning/search_job.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "model/spec/enum_names.hpp"
#include "model/job/evaluate.hpp"
#include "results/export/deployment.hpp"
#include "results/front/row_decoder.hpp"
#include "results/export/framework.hpp"
#include "results/files/atomic_file.hpp"
#include "results/files/csv.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/json.hpp"
#include "results/front/calibration_marks.hpp"
#include "search/cursor.hpp"
#include "search/pareto_archive.hpp"
#include "search/search.hpp"
#include "src/planning/search_section.hpp"
#include "src/planning/search_space.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/version.hpp"
#include "src/scenario/stack_source.hpp"

namespace shardmeter::cli {

namespace {

// Fails before the search rather than after it when an output cannot be written (missing directory, a device
// given for the HDF5 file).
void check_output_paths(const SearchJobOptions& o) {
  if (!o.output_h5.empty()) results::AtomicFile::check(o.output_h5, results::AtomicFile::Target::regular);
  for (const std::string* path : {&o.output_csv, &o.output_json})
    if (!path->empty()) results::AtomicFile::check(*path);
}

// The boundary between the search and the result files: the search's points (its front, its --all records, in the
// sink below) become results::PlanPoint here and nowhere else.
results::PlanPoint plan_point(const search::FrontPoint& p) {
  return results::PlanPoint{p.scenario, p.estimate, p.index, p.labels};
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
  const auto load = [&](const std::vector<Override>& overrides) {
    return options.scenario_text.empty()
               ? load_scenario(options.scenario_path, overrides, catalog)
               : load_scenario(scenario_document_from_text(options.scenario_path, options.scenario_text, overrides),
                               catalog);
  };
  job.scenario = load(options.overrides);
  SearchSection section = read_search_section(job.scenario.doc, catalog, job.scenario.scenario);
  // Where the candidates' stack comes from (RunInfo::stack_source), before a framework or the rule pins it.
  std::string stack_from(stack_source(job.scenario.doc));
  for (const AxisSpec& axis : section.axes)
    if (axis.key == "plan.stack") stack_from = "searched";
  // A framework (--framework, else search.framework) fixes the stack its plans are costed on: the scenario is
  // loaded again with plan.stack set, as `--set plan.stack=...` would, so the provenance shows it.
  job.framework = options.framework.empty() ? section.framework : options.framework;
  const results::Framework* framework = nullptr;
  if (!job.framework.empty()) {
    framework = results::find_framework(job.framework);
    if (framework == nullptr)
      throw InputError("shardmeter search: --framework " + job.framework + " is not one of " +
                       results::framework_names());
    if (framework->stack) {
      const std::string stack(model::enum_name(*framework->stack));
      for (const AxisSpec& axis : section.axes)
        if (axis.key == "plan.stack" || axis.key == "plan")
          throw ScenarioError(axis.where, "search.axes." + axis.key, "",
                              "varies plan.stack, which the framework " + job.framework + " fixes to " + stack);
      std::vector<Override> overrides = options.overrides;
      overrides.push_back({"plan.stack", stack, "--framework " + job.framework});
      stack_from = "framework";
      // A framework without fp8 all-gathers trains the plan with training.fp8_params off: cost it so.
      if (!framework->fp8_gathers)
        for (const AxisSpec& axis : section.axes)
          if (axis.key == "training.fp8_params")
            throw ScenarioError(axis.where, "search.axes." + axis.key, "",
                                "varies training.fp8_params, which the framework " + job.framework +
                                    " cannot run (it has no fp8 all-gather; docs/export.md)");
      if (!framework->fp8_gathers && job.scenario.scenario.training.fp8_params) {
        overrides.push_back({"training.fp8_params", "false",
                             "--framework " + job.framework + " (no fp8 all-gather)"});
      }
      job.scenario = load(overrides);
      section = read_search_section(job.scenario.doc, catalog, job.scenario.scenario);
    }
  }
  // A scenario without plan.stack: its candidates keep the stack the base plan's sharding implies
  // (implied_stack_pin), set here as `--set plan.stack=...` would so the file's provenance names it.
  if (const std::optional<Override> pin = implied_stack_pin(job.scenario)) {
    std::vector<Override> overrides = options.overrides;
    overrides.push_back(*pin);
    job.scenario = load(overrides);
    section = read_search_section(job.scenario.doc, catalog, job.scenario.scenario);
  }
  // `--set KEY=V` on a key a search axis also sets overrides the axis (issue 33, docs/search.md): the key is held
  // at V, as the user asked, and the axis is left out of the space (before, the axis silently won).
  const std::size_t axes_given = section.axes.size();
  std::erase_if(section.axes, [&](const AxisSpec& a) {
    return std::any_of(options.overrides.begin(), options.overrides.end(),
                       [&](const Override& o) { return o.key == a.key; });
  });
  if (axes_given > 0 && section.axes.empty())
    throw ScenarioError(SourceLocation{job.scenario.doc.path, 0, 0}, "search.axes", "",
                        "has only keys that --set holds fixed; nothing is left to search (use shardmeter estimate)");
  const search::Space space = build_search_space(job.scenario, section, catalog, &stop);
  const search::Goal goal = make_goal(section);
  if (options.team.writes_files) check_output_paths(options);

  std::vector<std::string> axis_names;
  for (int a = 0; a < space.axis_count(); ++a) axis_names.push_back(space.axis(a).name);
  const results::RowLayout layout(max_island_entries(space), axis_names, longest_label(space));

  search::SearchOptions so;
  so.method = options.method;
  so.seed = options.seed;
  so.bound_prune = options.bound_prune;
  so.visit_budget = options.visit_budget;
  so.time_limit_s = options.time_limit_s;

  // --all: /all is streamed while the search runs. The engine calls the sink serially; the lock keeps the
  // (non-thread-safe) HDF5 writer serialised even if that ever changed.
  // The result file is created before the search starts (with or without --all), so a file that cannot be written
  // fails before the work, and its temporary file shows that the search is under way.
  std::unique_ptr<results::FrontWriter> writer;
  std::mutex writer_mutex;
  if (!options.output_h5.empty() && options.team.writes_files)
    writer = std::make_unique<results::FrontWriter>(options.output_h5, layout,
                                                    results::WriterOptions{.write_all = options.write_all});
  if (options.write_all && writer) {
    so.sink = [&](std::span<const search::CandidateRecord> batch) {
      // Decoding a candidate (its scenario and labels) costs more than the search's check of it: the writer decodes
      // each row on all threads into a point of its own and packs it at once (no batch of PlanPoints).
      const std::lock_guard lock(writer_mutex);
      writer->append_all(batch.size(), [&](std::size_t i, results::PlanPoint& p) {
        const search::CandidateRecord& r = batch[i];
        p.scenario = space.scenario(r.index);
        p.estimate = r.estimate;
        p.index = r.index;
        p.labels = space.labels(r.index);
      });
    };
    // An exhaustive search packs each row on the worker that checked the candidate, from its cursor (the
    // candidate's scenario and digits) and estimate: a chunk then carries only the rows, and this thread copies them.
    so.rows.row_bytes = writer->row_bytes();
    so.rows.pack = [&space, w = writer.get()](const search::Cursor& cursor, const model::Estimate& e, std::byte* row) {
      thread_local std::vector<std::string_view> labels;
      labels.resize(static_cast<std::size_t>(space.axis_count()));
      cursor.labels(labels);
      w->pack_row(results::RowView{cursor.scenario(), e, cursor.index(), labels}, row);
    };
    so.rows.append = [&](std::span<const std::byte> rows) {
      const std::lock_guard lock(writer_mutex);
      writer->append_packed(rows);
    };
  }
  // A framework's filter: every feasible candidate is written as that framework's export (a plan it refuses is
  // excluded, counted by the refusal's reason) and the kept ones make the front. Pruning by bounds is off: it
  // skips candidates dominated by plans the framework may refuse.
  std::optional<search::ParetoArchive> kept;
  std::map<std::string, std::uint64_t> excluded;
  if (framework != nullptr) {
    if (options.write_all)
      throw InputError("shardmeter search: --all with a framework (--framework or search.framework) is not supported: "
                       "/all would hold the plans the framework cannot run");
    if (options.team.before_search || options.team.after_search)
      throw InputError("shardmeter search: a framework search runs in one process (not under mpirun)");
    so.bound_prune = false;
    const std::vector<model::Objective> objectives =
        goal.objectives.empty() ? search::default_objectives() : goal.objectives;
    kept.emplace(static_cast<int>(objectives.size()));
    results::RunInfo source_info;
    source_info.scenario_name = job.scenario.name;
    source_info.version = version();
    so.sink = [&, objectives, source_info](std::span<const search::CandidateRecord> batch) {
      for (const search::CandidateRecord& r : batch) {
        const results::PlanPoint point{space.scenario(r.index), r.estimate, r.index, space.labels(r.index)};
        std::string why;
        try {
          const results::Row row = layout.row(point);
          const results::Deployment plan = results::make_deployment(results::decode_row(row, 0, &point.scenario));
          why = results::export_refusal(framework->format, plan,
                                        results::ExportSource{&source_info, &row, "", "search"});
        } catch (const results::ExportError& e) {
          why = e.feature();
        } catch (const results::ResultsError& e) {
          why = e.what();
        }
        if (!why.empty()) {
          ++excluded[results::refusal_reason(why)];
          continue;
        }
        ++job.framework_kept;
        search::ObjectiveVector oriented = r.objectives;
        for (std::size_t i = 0; i < objectives.size(); ++i)
          if (objectives[i].direction == model::Direction::maximize) oriented[i] = -oriented[i];
        kept->insert(r.index, oriented);
      }
    };
  }
  so.progress = options.progress;
  if (options.team.before_search) options.team.before_search(space, so);

  job.result = run_in_arena(options.threads, space, goal, so, stop);
  if (options.team.after_search) options.team.after_search(space, goal, so, job.result);
  if (options.search_done) options.search_done();

  if (kept) {
    // The front of the kept candidates, re-estimated as the search does its own.
    std::vector<search::FrontPoint> front;
    for (const search::ArchivePoint& a : kept->sorted()) {
      search::FrontPoint p;
      p.index = a.index;
      p.labels = space.labels(a.index);
      p.scenario = space.scenario(a.index);
      p.estimate = model::evaluate(p.scenario);
      for (std::size_t i = 0; i < job.result.objectives.size(); ++i)
        p.objectives[i] = job.result.objectives[i].value(p.estimate);
      front.push_back(std::move(p));
    }
    job.result.front = std::move(front);
    job.framework_excluded.assign(excluded.begin(), excluded.end());
    std::stable_sort(job.framework_excluded.begin(), job.framework_excluded.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
  }
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
  info.ranks = job.result.ranks;
  info.space_size = c.space_size;
  info.visited = c.visited;
  info.estimated = c.estimated;
  info.feasible = c.feasible;
  for (const auto& [reason, count] : c.rejections()) info.rejected[reason] = count;
  info.elapsed_s = job.result.elapsed_s;
  info.complete = job.result.complete;
  info.counts_estimated = c.estimated_counts;
  info.objectives = job.result.objectives;
  info.axes = axis_names;
  info.created = options.created;
  info.stack_source = stack_from;
  // The GPU types of the front's rows whose constants no published run fits on the row's stack, per type and per
  // (type, stack): the report, the export headers and the search table flag them per row.
  std::set<std::string> gpus, pairs;
  for (const results::PlanPoint& p : job.front)
    for (const std::string& g : uncalibrated_in(catalog, p.scenario)) {
      gpus.insert(g);
      pairs.insert(results::gpu_stack_key(g, model::enum_name(p.scenario.plan.stack)));
    }
  info.uncalibrated_gpus = std::vector<std::string>(gpus.begin(), gpus.end());
  info.uncalibrated_gpu_stacks = std::vector<std::string>(pairs.begin(), pairs.end());
  for (const std::string& g : gpus) {
    const auto it = catalog.gpus.find(g);
    if (it == catalog.gpus.end() || it->second.calibration_stacks.empty() ||
        calibration_of(catalog, g, it->second.calibration_stacks.front()) == CalibrationStatus::uncalibrated) {
      job.uncalibrated_legend.push_back(g);
      continue;
    }
    std::string stacks;
    for (const std::string& pair : pairs)
      if (pair.starts_with(g + ":")) stacks += (stacks.empty() ? "" : ", ") + pair.substr(g.size() + 1);
    job.uncalibrated_legend.push_back(g + " on " + stacks);
  }

  if (!options.team.writes_files) return job;
  // Every output is written in full before any replaces its target, so a full disk or a failing device leaves
  // all previous outputs in place (only a failure between the renames can leave some replaced).
  std::optional<results::AtomicFile> csv, json;
  if (!options.output_csv.empty() || !options.output_json.empty()) {
    const results::Table table = layout.table(job.front);
    if (!options.output_csv.empty()) csv.emplace(options.output_csv).write(results::to_csv(table));
    if (!options.output_json.empty()) json.emplace(options.output_json).write(results::to_json_text(info, table));
  }
  if (!options.output_h5.empty()) {
    writer->finish(info, job.front);
  }
  if (csv) csv->commit();
  if (json) json->commit();
  return job;
}

}  // namespace shardmeter::cli
