#pragma once
// training:, runtime: and goodput: — small sections of plain values.
#include "model/spec/scenario.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

void parse_training(const YamlField& field, model::TrainingSpec& out, const KeyTable& keys);
void parse_runtime(const YamlField& field, model::RuntimeSpec& out, const KeyTable& keys);
// `cluster` gives the node size that goodput.failures_per_node_day is spread over.
void parse_goodput(const YamlField& field, const model::ClusterSpec& cluster, model::GoodputSpec& out,
                   const KeyTable& keys);

}  // namespace shardmeter::cli
