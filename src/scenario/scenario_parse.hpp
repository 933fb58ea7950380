#pragma once
// Reading a scenario: document (src/scenario/scenario_document.hpp) -> model::Scenario -> consistency check.
// Every error names the file, line, column, dotted key path and offending value (ScenarioError).
#include <string>
#include <vector>

#include "model/spec/scenario.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_document.hpp"
#include "src/scenario/scenario_keys.hpp"

namespace shardmeter::cli {

// Types, ranges, defaults, presets and catalog lookups, as `keys` declares them; no cross-field checks. Throws
// ScenarioError.
model::Scenario parse_scenario(const ScenarioDocument& doc, const Catalog& catalog,
                               const KeyTable& keys = scenario_keys());

struct LoadedScenario {
  ScenarioDocument doc;
  model::Scenario scenario;
  std::string name;
};
// read + parse + check (src/scenario/scenario_check.hpp).
LoadedScenario load_scenario(const std::string& path, const std::vector<Override>& overrides, const Catalog& catalog,
                             const KeyTable& keys = scenario_keys());
// parse + check of a document already read (from text, or a copy with more overrides applied).
LoadedScenario load_scenario(ScenarioDocument doc, const Catalog& catalog, const KeyTable& keys = scenario_keys());

}  // namespace shardmeter::cli
