#pragma once
// The `search:` section of a scenario: axes (dotted key -> values), constraints and objectives.
//
//   search:
//     axes:
//       cluster.islands.0.gpu: [a100-sxm-80gb, h100-sxm, h200-sxm]
//       cluster.islands.0.gpus: 64:1024:x2
//       plan.tp: [1, 2, 4, 8]
//     constraints: {max_total_cost_usd: 5e6, max_wall_clock_days: 60, gpu_quota: {h100-sxm: 512}}
//     objectives: [total_cost_usd, tokens_per_s]          # or {metric: mfu, sense: max}
//
// Parsed here, not by the scenario loader: every command that takes a scenario loads it through
// load_scenario_with_search (so `estimate` rejects a bad section too), and the search job reads it once.
// Every error is a ScenarioError at the offending key; unknown keys are errors.
// Keys are declared in src/scenario/scenario_keys.cpp; metric names, units and natural directions come from the
// metric table (model/spec/metrics.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "model/spec/scenario.hpp"
#include "search/goal.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace shardmeter::cli {

struct SearchSection {
  bool present = false;                             // the scenario has a `search:` key
  std::vector<AxisSpec> axes;                       // in the order written
  std::vector<search::MetricConstraint> constraints;   // in the order written, named as written (max_total_cost_usd)
  std::vector<search::GpuQuota> quotas;
  std::vector<model::Objective> objectives;         // 1..search::kMaxObjectives; default search::default_objectives()
  std::string framework;                            // search.framework (results/export/framework.hpp), "" = none
};

// The section of a loaded scenario document (absent or null gives the defaults and present = false). `scenario` is
// the base scenario: GPU quotas may name its islands' GPU types as well as the catalog's.
SearchSection read_search_section(const ScenarioDocument& doc, const Catalog& catalog, const model::Scenario& scenario);
// load_scenario, then read_search_section: every command that takes a scenario loads it this way, so a bad
// `search:` section is an error for each of them (ScenarioError), not only for `shardmeter search`.
LoadedScenario load_scenario_with_search(const std::string& path, const std::vector<Override>& overrides,
                                         const Catalog& catalog);
LoadedScenario load_scenario_with_search(ScenarioDocument doc, const Catalog& catalog);

// The section's objectives, constraints and quotas.
search::Goal make_goal(const SearchSection& section);

}  // namespace shardmeter::cli
