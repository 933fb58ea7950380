#pragma once
// model: the transformer's dimensions, with its preset (scenarios/models/<name>.yaml) merged under it.
#include "model/model_spec.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

void parse_model(const YamlField& field, const Catalog& catalog, model::ModelSpec& out, const KeyTable& keys);

}  // namespace shardmeter::cli
