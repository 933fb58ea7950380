#pragma once
// The shipped catalogs: GPU types (scenarios/gpus.yaml), link types (scenarios/links.yaml) and model presets
// (scenarios/models/*.yaml). Every number in them carries its source in the YAML.
#include <map>
#include <string>

#include <yaml-cpp/yaml.h>

#include "model/hardware_spec.hpp"

namespace shardmeter::cli {

// Node-level defaults a GPU type comes with; an island may override each.
struct GpuEntry {
  model::GpuSpec gpu;
  int gpus_per_node = 8;
  double node_network_gbps = 0;        // Gbit/s per node (scale-out)
  std::string scaleout_link;           // key into links
};

struct LinkEntry {
  double efficiency = 1;
  double latency_s = 0;
};

struct Catalog {
  std::string dir;                               // data directory it was read from
  std::map<std::string, GpuEntry> gpus;
  std::map<std::string, LinkEntry> links;
  std::map<std::string, YAML::Node> model_presets;   // preset name -> its `model:` mapping
  std::map<std::string, std::string> preset_files;   // preset name -> file path (for error locations)
};

// Reads <data_dir>/gpus.yaml, links.yaml and models/*.yaml. Throws ScenarioError naming the catalog file.
Catalog load_catalog(const std::string& data_dir);

}  // namespace shardmeter::cli
