#pragma once
// The search space of a scenario: its `search.axes` turned into byte-patch axes (src/planning/axis_builder.hpp) on the
// loaded base scenario. Problems with the axes are ScenarioErrors at the axis that causes them.
#include <atomic>
#include <optional>

#include "search/space.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/planning/search_section.hpp"

namespace shardmeter::cli {

// Throws ScenarioError: no `search:` section or no axes; a value that does not parse; two axes that set the same
// scenario fields (e.g. `plan` and `plan.tp`); a space of 2^64 candidates or more.
// `stop` (Ctrl-C) is polled between axis values: building stops with Interrupted (src/planning/axis_builder.hpp).
search::Space build_search_space(const LoadedScenario& base, const SearchSection& section, const Catalog& catalog,
                                 const std::atomic<bool>* stop = nullptr);

// For a scenario that leaves plan.stack out: the override that pins it to the stack the base plan's sharding implies
// (docs/scenarios.md, "The software stack"), so every candidate keeps it. The catalog's per-stack efficiency sets are
// resolved into each island's GPU when a candidate is parsed: a stack following each candidate's sharding would make
// a sharding axis rewrite the GPU fields a GPU axis sets. Nothing when the scenario sets plan.stack.
std::optional<Override> implied_stack_pin(const LoadedScenario& base);

// The most island entries any candidate of the space has (the result file's per-island columns).
int max_island_entries(const search::Space& space);
// The longest axis label (bytes), at least 1.
std::size_t longest_label(const search::Space& space);

}  // namespace shardmeter::cli
