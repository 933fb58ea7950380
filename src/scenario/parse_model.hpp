#pragma once
// model: the transformer's dimensions, with its preset (scenarios/models/<name>.yaml) merged under it.
#include "model/spec/model_spec.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

void parse_model(const YamlField& field, const Catalog& catalog, model::ModelSpec& out, const KeyTable& keys);

// The model a preset describes on its own (`model: {preset: NAME}`), e.g. for `shardmeter list models`.
// Throws ScenarioError for an unknown name.
model::ModelSpec preset_model(const Catalog& catalog, const std::string& name, const KeyTable& keys);

}  // namespace shardmeter::cli
