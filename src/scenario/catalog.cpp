#include "src/scenario/catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "src/scenario/gpu_fields.hpp"
#include "src/scenario/key_reader.hpp"
#include "src/scenario/plain_name.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace {

// The one top-level key of a catalog file, as a map of named entries.
YamlField entries_of(const YamlSource& source, const YAML::Node& root, std::string_view top_key) {
  const std::vector<std::string_view> allowed{top_key};
  const YamlMap top(YamlField(source, root, ""), allowed);
  if (!top.has(top_key)) throw top.missing(top_key, "is required");
  const YamlField entries = top[top_key];
  if (!entries.node().IsMap()) throw entries.error("is not a map of named entries");
  return entries;
}

void load_links(const std::string& path, Catalog& catalog, const KeyTable& keys) {
  std::string text;
  const YamlSource source{path, nullptr};
  const YamlField entries = entries_of(source, load_yaml_file(path, text), "links");
  for (const auto& item : entries.node()) {
    const std::string name = YamlField(source, item.first, "links").as_string();
    if (const std::string problem = plain_name_problem(name, model::FixedName::kCapacity); !problem.empty())
      throw YamlField(source, item.first, "links").error(problem);
    const YamlMap map = section_map(keys, YamlField(source, item.second, "links." + name), {Section::link_catalog});
    check_required(keys, Section::link_catalog, map);
    LinkEntry link;
    read_keys(keys, Section::link_catalog, map, link);
    catalog.links[name] = link;
  }
}

void load_gpus(const std::string& path, Catalog& catalog, const KeyTable& keys) {
  std::string text;
  const YamlSource source{path, nullptr};
  const YamlField entries = entries_of(source, load_yaml_file(path, text), "gpus");
  const std::initializer_list<Section> kSections = {Section::gpu_fields, Section::gpu_catalog};
  for (const auto& item : entries.node()) {
    const std::string name = YamlField(source, item.first, "gpus").as_string();
    if (const std::string problem = plain_name_problem(name, model::FixedName::kCapacity); !problem.empty())
      throw YamlField(source, item.first, "gpus").error(problem);
    const YamlMap map = section_map(keys, YamlField(source, item.second, "gpus." + name), kSections);
    for (Section section : kSections)
      for (const KeySpec& key : keys.keys(section))
        if ((key.flags & kRequiredInCatalog) != 0 && !map.has(key.name))
          throw map.missing(key.name, "is required in a catalog entry");
    GpuEntry entry = blank_gpu_entry(keys);
    entry.gpu.name.assign(name);
    entry.family = name;  // unless the entry names its family
    apply_gpu_fields(map, entry, catalog.links, keys);
    // Every number in the catalog cites its source.
    for (Section section : kSections)
      for (const KeySpec& key : keys.keys(section))
        if ((key.flags & kCited) != 0 && map.has(key.name) && entry.sources.count(std::string(key.name)) == 0)
          throw map.missing("sources." + std::string(key.name),
                            "is missing: every number in the catalog cites its source");
    catalog.gpus[name] = std::move(entry);
  }
}

}  // namespace

Catalog load_catalog(const std::string& data_dir, const KeyTable& keys) {
  Catalog catalog;
  catalog.dir = data_dir;
  load_links(data_dir + "/links.yaml", catalog, keys);
  load_gpus(data_dir + "/gpus.yaml", catalog, keys);
  catalog.presets = PresetLibrary(data_dir + "/models", keys);
  return catalog;
}

}  // namespace shardmeter::cli
