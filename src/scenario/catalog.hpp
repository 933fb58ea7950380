#pragma once
// The shipped catalogs: GPU types (scenarios/gpus.yaml), link types (scenarios/links.yaml) and model presets
// (scenarios/models/*.yaml). Every number in them carries its source in the YAML.
#include <map>
#include <string>

#include "src/scenario/catalog_entries.hpp"
#include "src/scenario/scenario_keys.hpp"
#include "src/scenario/yaml_tree.hpp"

namespace shardmeter::cli {

struct Catalog {
  std::string dir;                               // data directory it was read from
  std::map<std::string, GpuEntry> gpus;
  std::map<std::string, LinkEntry> links;
  std::map<std::string, YamlTree> model_presets;     // preset name -> its `model:` mapping
  std::map<std::string, std::string> preset_files;   // preset name -> file path (for error locations)
  std::map<std::string, PresetInfo> preset_info;     // preset name -> citation and published size
};

// Reads <data_dir>/gpus.yaml, links.yaml and models/*.yaml, their keys as `keys` declares them. Throws
// ScenarioError naming the catalog file.
Catalog load_catalog(const std::string& data_dir, const KeyTable& keys = scenario_keys());

}  // namespace shardmeter::cli
