#include "src/scenario/key_reader.hpp"

#include <stdexcept>
#include <string>

namespace shardmeter::cli {

namespace {

const KeyAccess& access_of(const KeySpec& key, const void* tag) {
  if (key.access->object != tag)
    throw std::logic_error("key table: " + std::string(key.name) + " fills another struct than its section's");
  return *key.access;
}

}  // namespace

YamlMap section_map(const KeyTable& keys, const YamlField& field, std::initializer_list<Section> sections) {
  const std::vector<std::string_view> names = keys.names(sections);
  return YamlMap(field, names);
}

void apply_default(const KeySpec& key, void* object) {
  static const YamlSource table{"key table default", nullptr};
  // A default is trusted as written: it may lie outside what a file may give (-1 for "the published fit").
  KeySpec unbounded = key;
  unbounded.bounds = Range{};
  key.access->read(unbounded, YamlField(table, YAML::Node(std::string(key.fallback.text)), std::string(key.name)),
                   object);
}

void apply_defaults(const KeyTable& keys, Section section, const void* tag, void* object) {
  for (const KeySpec& key : keys.keys(section))
    if (key.access != nullptr && key.fallback.kind == KeyDefault::Kind::value) {
      access_of(key, tag);
      apply_default(key, object);
    }
}

void check_required(const KeyTable& keys, Section section, const YamlMap& map) {
  for (const KeySpec& key : keys.keys(section))
    if (key.fallback.kind == KeyDefault::Kind::required && !map.has(key.name))
      throw map.missing(key.name, std::string(key.fallback.problem));
}

void read_keys(const KeyTable& keys, Section section, const YamlMap& map, const void* tag, void* object) {
  for (const KeySpec& key : keys.keys(section))
    if (key.access != nullptr && map.has(key.name)) access_of(key, tag).read(key, map[key.name], object);
}

}  // namespace shardmeter::cli
