#pragma once
// The shipped catalogs: GPU types (scenarios/gpus.yaml), link types (scenarios/links.yaml) and model presets
// (scenarios/models/*.yaml). Every number in them carries its source in the YAML.
#include <map>
#include <string>

#include "src/scenario/catalog_entries.hpp"
#include "src/scenario/preset_library.hpp"
#include "src/scenario/scenario_keys.hpp"

namespace shardmeter::cli {

struct Catalog {
  std::string dir;                               // data directory it was read from
  std::map<std::string, GpuEntry> gpus;
  std::map<std::string, LinkEntry> links;
  PresetLibrary presets;                         // models/*.yaml, each read when a scenario first names it
};

// Reads <data_dir>/gpus.yaml and links.yaml and lists models/*.yaml (src/scenario/preset_library.hpp), their keys
// as `keys` declares them. Throws ScenarioError naming the catalog file.
Catalog load_catalog(const std::string& data_dir, const KeyTable& keys = scenario_keys());

}  // namespace shardmeter::cli
