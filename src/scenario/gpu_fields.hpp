#pragma once
// The fields of a GPU type, read the same way wherever they appear: a catalog entry (scenarios/gpus.yaml),
// an inline `gpu:` map of an island, or an island's overrides of its catalog GPU. The key table's gpu_fields,
// gpu_catalog and efficiency sections declare them (units are converted to SI as they are read); link names are
// resolved here.
#include <map>
#include <string>

#include "src/scenario/catalog_entries.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

// A GpuEntry with zeroed padding and the key table's defaults.
GpuEntry blank_gpu_entry(const KeyTable& keys);

// Applies every GPU field present in `map` to `entry` (links resolved through `links`). Keys that are not GPU
// fields are left to the caller, which has already checked them against its own allowed list.
void apply_gpu_fields(const YamlMap& map, GpuEntry& entry, const std::map<std::string, LinkEntry>& links,
                      const KeyTable& keys);

// The LinkSpec of a named link type at a nominal bandwidth; throws at `field` for an unknown name.
model::LinkSpec resolve_link(const YamlField& field, const std::map<std::string, LinkEntry>& links,
                             double bytes_per_s);

}  // namespace shardmeter::cli
