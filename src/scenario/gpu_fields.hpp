#pragma once
// The fields of a GPU type, read the same way wherever they appear: a catalog entry (scenarios/gpus.yaml),
// an inline `gpu:` map of an island, or an island's overrides of its catalog GPU. Units are converted here
// (TFLOP/s, GB, TB/s, GB/s, Gbit/s, µs -> SI).
#include <map>
#include <string>

#include "src/scenario/catalog_entries.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

// A GpuEntry with zeroed padding and the model's default member values.
GpuEntry blank_gpu_entry();

// Applies every GPU field present in `map` to `entry` (links resolved through `links`). Keys that are not GPU
// fields are left to the caller, which has already checked them against its own allowed list.
void apply_gpu_fields(const YamlMap& map, GpuEntry& entry, const std::map<std::string, LinkEntry>& links);

// The LinkSpec of a named link type at a nominal bandwidth; throws at `field` for an unknown name.
model::LinkSpec resolve_link(const YamlField& field, const std::map<std::string, LinkEntry>& links,
                             double bytes_per_s);

}  // namespace shardmeter::cli
