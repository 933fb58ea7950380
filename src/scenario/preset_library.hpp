#pragma once
// The model presets of a data directory (<data_dir>/models/<name>.yaml), each read and checked on first use: a
// scenario names one preset of about thirty, and reading them all was a quarter of an `estimate` call
// (issue 13). Copies share the presets read so far; get() is safe from several threads.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "src/scenario/catalog_entries.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_tree.hpp"

namespace shardmeter::cli {

struct Preset {
  std::string file;   // its path (for error locations)
  YamlTree model;     // its `model:` mapping
  PresetInfo info;    // citation and published size
};

class PresetLibrary {
public:
  PresetLibrary();   // no presets
  // Lists <dir>/*.yaml (reads none); ScenarioError naming `dir` when it cannot be listed. `keys` is copied.
  PresetLibrary(const std::string& dir, const KeyTable& keys);

  const std::vector<std::string>& names() const;   // sorted
  bool has(const std::string& name) const;
  // The preset, read on first use. Throws ScenarioError naming its file (not YAML, a key unknown or out of range,
  // `name:` other than the file's stem, no `model:` map) and std::out_of_range for a name it does not have.
  const Preset& get(const std::string& name) const;

private:
  struct Shelf;
  std::shared_ptr<Shelf> shelf_;
};

}  // namespace shardmeter::cli
