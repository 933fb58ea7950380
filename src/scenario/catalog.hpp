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
  model::GpuSpec gpu;                  // scaleup.type names the scale-up link; efficiency/latency resolved from it
  int gpus_per_node = 8;
  double node_network_gbps = 0;        // Gbit/s per node (scale-out)
  std::string scaleout_link;           // key into links
  double price_high_usd_per_gpu_hour = 0;       // hyperscaler list price (reports only)
  std::string family;                           // types sharing a die share calibrated constants (default: name)
  std::map<std::string, std::string> sources;   // field -> citation
};

struct LinkEntry {
  double efficiency = 1;
  double latency_s = 0;
  std::string source;
};

struct PresetInfo {
  std::string source;              // citation for the dimensions
  double published_params_b = 0;   // published parameter count, billions
};

struct Catalog {
  std::string dir;                               // data directory it was read from
  std::map<std::string, GpuEntry> gpus;
  std::map<std::string, LinkEntry> links;
  std::map<std::string, YAML::Node> model_presets;   // preset name -> its `model:` mapping
  std::map<std::string, std::string> preset_files;   // preset name -> file path (for error locations)
  std::map<std::string, PresetInfo> preset_info;     // preset name -> citation and published size
};

// Reads <data_dir>/gpus.yaml, links.yaml and models/*.yaml. Throws ScenarioError naming the catalog file.
Catalog load_catalog(const std::string& data_dir);

}  // namespace shardmeter::cli
