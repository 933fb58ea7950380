#pragma once
// A front row's scenario, rebuilt the way results/README.md describes: the file's `scenario` text with every
// `axis:<path>` label applied as `--set <path>=<label>`, then parsed against the catalog. Only the parse lives here
// (results/ cannot parse scenarios): the row decoder (results/front/row_decoder.hpp) takes the result as the base
// for the keys no column holds, and checks it against the row's columns.
#include <optional>
#include <string>

#include "model/spec/scenario.hpp"
#include "results/front/row.hpp"
#include "src/scenario/catalog.hpp"

namespace shardmeter::cli {

// nullopt (and the reason in `why_not`) when the text does not load (e.g. a preset missing from this catalog).
// Never throws for bad file content.
std::optional<model::Scenario> rebuild_scenario(const results::RunInfo& info, const results::Row& row,
                                                const Catalog& catalog, std::string& why_not);

}  // namespace shardmeter::cli
