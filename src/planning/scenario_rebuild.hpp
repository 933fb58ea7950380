#pragma once
// A front row's exact scenario, rebuilt the way results/README.md describes: the file's `scenario` text with every
// `axis:<path>` label applied as `--set <path>=<label>`, then parsed against the catalog. `export` uses it for the
// plan fields the file's columns do not hold (overlap flags, DiLoCo fragments).
#include <optional>
#include <string>

#include "model/spec/scenario.hpp"
#include "results/front/row.hpp"
#include "src/scenario/catalog.hpp"

namespace shardmeter::cli {

// nullopt (and the reason in `why_not`) when the text does not load (e.g. a preset missing from this catalog) or
// the rebuilt plan disagrees with the row's plan columns. Never throws for bad file content.
std::optional<model::Scenario> rebuild_scenario(const results::RunInfo& info, const results::Row& row,
                                                const Catalog& catalog, std::string& why_not);

}  // namespace shardmeter::cli
