#pragma once
// The section parsers behind parse_scenario (src/scenario/scenario_parse.cpp). Each reads one section of the scenario
// document into its model/*.hpp value, converting units once, and throws ScenarioError at the offending key.
#include "model/scenario.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

// model: (with its preset)                                   src/scenario/parse_model.cpp
void parse_model(const YamlField& field, const Catalog& catalog, model::ModelSpec& out);
// training:, runtime:, goodput:                               src/scenario/parse_training.cpp
void parse_training(const YamlField& field, model::TrainingSpec& out);
void parse_runtime(const YamlField& field, model::RuntimeSpec& out);
void parse_goodput(const YamlField& field, const model::ClusterSpec& cluster, model::GoodputSpec& out);
// cluster: islands, wan, links                                src/scenario/parse_cluster.cpp (islands: src/scenario/parse_island.cpp)
void parse_cluster(const YamlField& field, const Catalog& catalog, model::ClusterSpec& out);
model::IslandSpec parse_island(const YamlField& field, int index, const Catalog& catalog);
// plan: (with diloco:)                                        src/scenario/parse_plan.cpp
void parse_plan(const YamlField& field, model::PlanSpec& out);

}  // namespace shardmeter::cli
