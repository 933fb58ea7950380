#pragma once
// Cross-field consistency of a parsed scenario (model::check_consistency), reported at the blamed key's position
// in its document with a sentence per rule.
#include "model/spec/scenario.hpp"
#include "src/scenario/scenario_document.hpp"

namespace shardmeter::cli {

// Throws ScenarioError at the key a violated rule blames.
void check_scenario(const model::Scenario& scenario, const ScenarioDocument& doc);

}  // namespace shardmeter::cli
