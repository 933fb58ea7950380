#pragma once
// cluster.islands[N]: one island entry — its GPU (catalog name or inline map), size, overrides and price.
#include "model/spec/cluster_spec.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

// `index` names an unnamed island ("island<index>").
model::IslandSpec parse_island(const YamlField& field, int index, const Catalog& catalog, const KeyTable& keys);

}  // namespace shardmeter::cli
