#include "src/python/python_api.hpp"

#include <algorithm>
#include <atomic>
#include <map>

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "model/job/evaluate.hpp"
#include "results/files/estimate_json.hpp"
#include "results/files/json.hpp"
#include "results/files/row_layout.hpp"
#include "src/planning/search_section.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/stack_source.hpp"

namespace shardmeter::python {

namespace {

cli::ScenarioDocument read_document(const ScenarioSource& source, const std::vector<cli::Override>& overrides) {
  if (source.text) return cli::scenario_document_from_text(source.label, *source.text, overrides);
  return cli::read_scenario_document(source.label, overrides);
}

}  // namespace

std::string estimate_json(const ScenarioSource& source, const std::vector<cli::Override>& overrides,
                          const cli::Catalog& catalog) {
  // Parsed once: the scenario, then its search: section's structure, keys, metrics and limits (read_search_section).
  // The CLI's estimate also builds each axis's first and last value, re-parsing the document once per value
  // (load_scenario_with_search): 8.5-12.5 ms per call on scenarios/default.yaml against 0.45 ms without its
  // search: section (issue 32); here a bad axis value is reported by search_json, which builds every value.
  const cli::LoadedScenario loaded = cli::load_scenario(read_document(source, overrides), catalog);
  cli::read_search_section(loaded.doc, catalog, loaded.scenario);
  return results::estimate_json(loaded.scenario, model::evaluate(loaded.scenario), loaded.name,
                                cli::uncalibrated_in(catalog, loaded.scenario), results::JsonLayout::indented,
                                cli::stack_source(loaded.doc));
}

results::Table evaluate_many(const ScenarioSource& source, const std::vector<std::vector<cli::Override>>& rows,
                             const cli::Catalog& catalog, int threads) {
  // One axis column per overridden key, in the order the keys first appear.
  std::vector<std::string> axes;
  std::map<std::string, std::size_t> axis_of;
  for (const std::vector<cli::Override>& row : rows)
    for (const cli::Override& o : row)
      if (axis_of.emplace(o.key, axes.size()).second) axes.push_back(o.key);

  const cli::ScenarioDocument base = read_document(source, {});
  cli::load_scenario(base, catalog);  // a bad scenario is reported as such, not as row 0 (its search: is not read)
  std::vector<results::PlanPoint> points(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    cli::ScenarioDocument doc = base;   // a deep copy (scenario_document.hpp)
    try {
      for (const cli::Override& o : rows[i]) cli::apply_override(doc, o);
      points[i].scenario = cli::load_scenario(std::move(doc), catalog).scenario;
    } catch (const cli::ScenarioError& e) {
      throw cli::prefixed(e, fmt::format("row {}", i));
    }
    points[i].index = i;
    points[i].labels.assign(axes.size(), "");
    for (const cli::Override& o : rows[i]) points[i].labels[axis_of.at(o.key)] = o.value;
  }

  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, points.size()), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t i = r.begin(); i != r.end(); ++i) points[i].estimate = model::evaluate(points[i].scenario);
    });
  });
  return results::RowLayout::fit(points, axes).table(points);
}

std::string search_json(const ScenarioSource& source, cli::SearchJobOptions options, const cli::Catalog& catalog) {
  options.scenario_path = source.label;
  options.scenario_text = source.text.value_or("");
  std::atomic<bool> stop{false};
  const cli::SearchJobResult job = cli::run_search_job(options, catalog, stop);
  return results::to_json_text(job.info, results::RowLayout::fit(job.front, job.info.axes).table(job.front));
}

}  // namespace shardmeter::python
