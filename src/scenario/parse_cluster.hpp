#pragma once
// cluster: the island entries (src/scenario/parse_island.hpp), the default WAN between islands, and per-pair
// link overrides.
#include "model/spec/cluster_spec.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

void parse_cluster(const YamlField& field, const Catalog& catalog, model::ClusterSpec& out, const KeyTable& keys);

}  // namespace shardmeter::cli
