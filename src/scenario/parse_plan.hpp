#pragma once
// plan: parallel degrees, sharding, recompute, overlap switches, multi-island behaviour and DiLoCo.
#include "model/spec/plan_spec.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

void parse_plan(const YamlField& field, model::PlanSpec& out, const KeyTable& keys);

}  // namespace shardmeter::cli
