#pragma once
// What the Python module (src/python/module.cpp) computes, in plain C++: one estimate as the CLI's JSON, many
// estimates as one result table, a search as the CLI's JSON result file. The pybind11 glue only converts types.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/front/row.hpp"
#include "src/planning/search_job.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_document.hpp"

namespace shardmeter::python {

// A scenario file (`text` empty), or YAML text that `label` names in error locations ("<dict>", "<text>").
struct ScenarioSource {
  std::string label;
  std::optional<std::string> text;
};

// `shardmeter estimate SOURCE --set ... --json`, the same text (results::estimate_json). Throws ScenarioError.
std::string estimate_json(const ScenarioSource& source, const std::vector<cli::Override>& overrides,
                          const cli::Catalog& catalog);

// One row per entry of `rows` (each a list of overrides applied to the scenario), in order: the plan, metric and
// per-island columns of the result files, and one `axis:<key>` column per key any row overrides (its value as
// given; "" in rows that do not set it). Scenarios are read one after another (yaml-cpp nodes are shared handles
// and the catalog's presets are read by every row), then evaluated on `threads` workers (0: all). Throws
// ScenarioError naming the row ("row 3: ...") for a bad row.
results::Table evaluate_many(const ScenarioSource& source, const std::vector<std::vector<cli::Override>>& rows,
                             const cli::Catalog& catalog, int threads);

// `shardmeter search SOURCE --json FILE`'s file as text: {"run": {...}, "columns": [...], "front": [...]}. The
// scenario fields of `options` are set from `source`; the other fields are as given. Throws ScenarioError,
// results::ResultsError.
std::string search_json(const ScenarioSource& source, cli::SearchJobOptions options, const cli::Catalog& catalog);

}  // namespace shardmeter::python
