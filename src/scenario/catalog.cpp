#include "src/scenario/catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "model/units.hpp"
#include "src/scenario/gpu_fields.hpp"
#include "src/scenario/scenario_schema.hpp"
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

void load_links(const std::string& path, Catalog& catalog) {
  std::string text;
  const YamlSource source{path, nullptr};
  const YamlField entries = entries_of(source, load_yaml_file(path, text), "links");
  const auto keys = key_names({Section::link_catalog});
  for (const auto& item : entries.node()) {
    const std::string name = YamlField(source, item.first, "links").as_string();
    const YamlMap map(YamlField(source, item.second, "links." + name), keys);
    for (std::string_view required : keys)
      if (!map.has(required)) throw map.missing(required, "is required");
    LinkEntry link;
    map.read("efficiency", link.efficiency, Range::fraction());
    double latency_us = 0;
    map.read("latency_us", latency_us, Range::at_least(0));
    link.latency_s = model::us_to_s(latency_us);
    map.read("source", link.source);
    catalog.links[name] = link;
  }
}

// Fields every catalog GPU must give, and the numeric ones that must cite a source.
constexpr std::string_view kRequiredGpuFields[] = {
    "bf16_tflops",   "hbm_gib",        "hbm_tbps",    "scaleup_gbps",           "scaleup_link", "scaleup_domain_gpus",
    "gpus_per_node", "node_network_gbps", "scaleout_link", "price_usd_per_gpu_hour", "efficiency",   "sources"};
constexpr std::string_view kCitedGpuFields[] = {
    "bf16_tflops",       "fp8_tflops",    "hbm_gib",                 "hbm_tbps",
    "scaleup_gbps",      "scaleup_domain_gpus", "gpus_per_node",    "node_network_gbps",
    "price_usd_per_gpu_hour", "price_high_usd_per_gpu_hour", "spot_price_usd_per_gpu_hour", "efficiency"};

void load_gpus(const std::string& path, Catalog& catalog) {
  std::string text;
  const YamlSource source{path, nullptr};
  const YamlField entries = entries_of(source, load_yaml_file(path, text), "gpus");
  const auto keys = key_names({Section::gpu_fields, Section::gpu_catalog});
  for (const auto& item : entries.node()) {
    const std::string name = YamlField(source, item.first, "gpus").as_string();
    if (name.size() > model::FixedName::kCapacity)
      throw YamlField(source, item.first, "gpus").error("is longer than 31 characters");
    const YamlMap map(YamlField(source, item.second, "gpus." + name), keys);
    for (std::string_view required : kRequiredGpuFields)
      if (!map.has(required)) throw map.missing(required, "is required in a catalog entry");
    GpuEntry entry = blank_gpu_entry();
    entry.gpu.name.assign(name);
    apply_gpu_fields(map, entry, catalog.links);
    entry.family = name;
    map.read("family", entry.family);
    for (std::string_view field : kCitedGpuFields)
      if (map.has(field) && entry.sources.count(std::string(field)) == 0)
        throw map.missing("sources." + std::string(field), "is missing: every number in the catalog cites its source");
    catalog.gpus[name] = std::move(entry);
  }
}

void load_presets(const std::string& dir, Catalog& catalog) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& item : std::filesystem::directory_iterator(dir, ec))
    if (item.path().extension() == ".yaml") files.push_back(item.path());
  if (ec) throw ScenarioError(SourceLocation{dir, 0, 0}, "", "", "cannot be read: " + ec.message());
  std::sort(files.begin(), files.end());  // deterministic order

  const auto keys = key_names({Section::preset_file});
  for (const std::filesystem::path& file : files) {
    const std::string path = file.string();
    std::string text;
    const YamlSource source{path, nullptr};
    const YamlMap top(YamlField(source, load_yaml_file(path, text), ""), keys);
    for (std::string_view required : keys)
      if (!top.has(required)) throw top.missing(required, "is required in a model preset");
    const std::string name = top["name"].as_string();
    if (name != file.stem().string())
      throw top["name"].error("does not match the file name (" + file.filename().string() + ")");
    if (!top["model"].node().IsMap()) throw top["model"].error("is not a map of model keys");
    PresetInfo info;
    top.read("source", info.source);
    top.read("published_params_b", info.published_params_b, Range::positive());
    catalog.model_presets[name] = top["model"].node();
    catalog.preset_files[name] = path;
    catalog.preset_info[name] = info;
  }
}

}  // namespace

Catalog load_catalog(const std::string& data_dir) {
  Catalog catalog;
  catalog.dir = data_dir;
  load_links(data_dir + "/links.yaml", catalog);
  load_gpus(data_dir + "/gpus.yaml", catalog);
  load_presets(data_dir + "/models", catalog);
  return catalog;
}

}  // namespace shardmeter::cli
