#include "src/scenario/preset_library.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "src/scenario/key_reader.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

struct PresetLibrary::Shelf {
  explicit Shelf(const KeyTable& table) : keys(table) {}
  KeyTable keys;
  std::vector<std::string> names;                  // sorted
  std::map<std::string, std::string> files;        // name -> path
  std::mutex mutex;                                // guards `read`
  std::map<std::string, Preset> read;              // node-based: references stay valid as presets are added
};

namespace {

Preset read_preset(const std::string& path, const std::string& stem, const KeyTable& keys) {
  std::string text;
  const YamlSource source{path, nullptr};
  const YamlMap top = section_map(keys, YamlField(source, load_yaml_file(path, text), ""), {Section::preset_file});
  check_required(keys, Section::preset_file, top);
  if (top["name"].as_string() != stem)
    throw top["name"].error("does not match the file name (" + std::filesystem::path(path).filename().string() + ")");
  if (!top["model"].node().IsMap()) throw top["model"].error("is not a map of model keys");
  Preset preset;
  preset.file = path;
  preset.model = YamlTree(top["model"].node());
  read_keys(keys, Section::preset_file, top, preset.info);
  return preset;
}

}  // namespace

PresetLibrary::PresetLibrary() : shelf_(std::make_shared<Shelf>(KeyTable(std::vector<SectionKeys>{}))) {}

PresetLibrary::PresetLibrary(const std::string& dir, const KeyTable& keys) : shelf_(std::make_shared<Shelf>(keys)) {
  std::error_code ec;
  for (const auto& item : std::filesystem::directory_iterator(dir, ec))
    if (item.path().extension() == ".yaml") shelf_->files[item.path().stem().string()] = item.path().string();
  if (ec) throw ScenarioError(SourceLocation{dir, 0, 0}, "", "", "cannot be read: " + ec.message());
  for (const auto& [name, path] : shelf_->files) shelf_->names.push_back(name);  // the map keeps them sorted
}

const std::vector<std::string>& PresetLibrary::names() const { return shelf_->names; }

bool PresetLibrary::has(const std::string& name) const { return shelf_->files.count(name) == 1; }

const Preset& PresetLibrary::get(const std::string& name) const {
  const std::string& path = shelf_->files.at(name);
  const std::lock_guard lock(shelf_->mutex);
  auto it = shelf_->read.find(name);
  if (it == shelf_->read.end()) it = shelf_->read.emplace(name, read_preset(path, name, shelf_->keys)).first;
  return it->second;
}

}  // namespace shardmeter::cli
