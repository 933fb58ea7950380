// cluster.islands[N]: one island entry — its GPU (catalog name or inline map), size, overrides and price.
#include "src/scenario/parse_island.hpp"

#include <filesystem>

#include "model/comm/network_profile.hpp"
#include "model/spec/units.hpp"
#include "src/network/nccl_log.hpp"
#include "src/scenario/network_profiles.hpp"
#include "src/scenario/gpu_fields.hpp"
#include "src/scenario/key_reader.hpp"
#include "src/scenario/plain_name.hpp"
#include "src/scenario/zeroed.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

// The model counts GPUs in int: keep every entry (and so every product of parallel degrees) well inside it.
constexpr std::int64_t kMaxGpusPerEntry = 100'000'000;

GpuEntry inline_gpu(const YamlField& field, const Catalog& catalog, const KeyTable& keys) {
  const YamlMap map = section_map(keys, field, {Section::gpu_fields, Section::gpu_catalog, Section::inline_gpu});
  for (Section section : {Section::gpu_fields, Section::gpu_catalog})
    for (const KeySpec& key : keys.keys(section))
      if ((key.flags & kRequiredInline) != 0 && !map.has(key.name))
        throw map.missing(key.name, "is required in an inline GPU map");
  GpuEntry entry = blank_gpu_entry(keys);
  std::string name(keys.key(Section::inline_gpu, "name").fallback.text);
  map.read("name", name);
  if (const std::string problem = plain_name_problem(name, m::FixedName::kCapacity); !problem.empty())
    throw map["name"].error(problem);
  entry.gpu.name.assign(name);
  apply_gpu_fields(map, entry, catalog.links, keys);
  return entry;
}

GpuEntry catalog_gpu(const YamlField& field, const Catalog& catalog) {
  const std::string name = field.as_string();
  if (const auto it = catalog.gpus.find(name); it != catalog.gpus.end()) return it->second;
  std::vector<std::string> known;
  for (const auto& [key, entry] : catalog.gpus) known.push_back(key);
  const std::string suggestion = closest_match(name, known);
  throw field.error("is not a known GPU" + (suggestion.empty() ? "" : " (did you mean " + suggestion + "?)") +
                    "; known: " + join(known) + "; or give an inline map of GPU fields");
}

}  // namespace

m::IslandSpec parse_island(const YamlField& field, int index, const Catalog& catalog, const KeyTable& keys) {
  if (field.is_null() || !field.node().IsMap()) throw field.error("is not a map describing an island");
  const YamlMap map = section_map(keys, field, {Section::island, Section::gpu_fields});
  check_required(keys, Section::island, map);
  const YamlField gpu_field = map["gpu"];
  GpuEntry entry = gpu_field.node().IsMap() ? inline_gpu(gpu_field, catalog, keys) : catalog_gpu(gpu_field, catalog);
  apply_gpu_fields(map, entry, catalog.links, keys);  // the island's overrides of its GPU's fields

  m::IslandSpec island;
  reset_zeroed(island);
  apply_defaults(keys, Section::island, island);
  island.gpu = entry.gpu;
  island.gpus_per_node = entry.gpus_per_node;

  std::string name = "island" + std::to_string(index);
  map.read("name", name);
  if (const std::string problem = plain_name_problem(name, m::FixedName::kCapacity); !problem.empty())
    throw map["name"].error(problem);
  island.name.assign(name);

  const bool has_gpus = map.has("gpus");
  const bool has_nodes = map.has("nodes");
  if (has_gpus && has_nodes) throw map["nodes"].error("cannot be combined with " + map.child_path("gpus") + "; give one");
  if (!has_gpus && !has_nodes) throw map.missing("gpus", "is required (or nodes)");
  read_keys(keys, Section::island, map, island);  // gpus, count, spot, preemptions
  if (has_nodes) {
    // As many nodes as the most GPUs an entry's `gpus` may give.
    const double most_gpus = keys.key(Section::island, "gpus").bounds.max;
    const int nodes = map["nodes"].as_int(Range::between(1, most_gpus / island.gpus_per_node));
    island.gpus = nodes * island.gpus_per_node;
  }
  if (static_cast<std::int64_t>(island.gpus) * island.count > kMaxGpusPerEntry)
    throw map[map.has("count") ? "count" : (has_gpus ? "gpus" : "nodes")].error(
        "gives " + std::to_string(static_cast<std::int64_t>(island.gpus) * island.count) + " GPUs; at most " +
        std::to_string(kMaxGpusPerEntry) + " per island entry are supported");

  // Scale-out: the node's whole injection bandwidth, at the link type's efficiency and latency.
  const double node_bytes_per_s = m::gbit_per_s_to_bytes_per_s(entry.node_network_gbps);
  if (!entry.scaleout_link.empty()) {
    const LinkEntry& link = catalog.links.at(entry.scaleout_link);
    island.node_network.type.assign(entry.scaleout_link);
    island.node_network.efficiency = link.efficiency;
    island.node_network.latency_s = link.latency_s;
  }
  island.node_network.bytes_per_s = node_bytes_per_s;
  const bool multi_node = island.gpus > island.gpus_per_node || island.count > 1;
  if (multi_node && (entry.scaleout_link.empty() || node_bytes_per_s <= 0)) {
    const std::string_view key = entry.scaleout_link.empty() ? "scaleout_link" : "node_network_gbps";
    throw map.missing(key, "is required: the island spans several nodes and its GPU gives no scale-out network");
  }

  // network_profile: a measured network (docs/network.md), its path relative to the scenario file.
  if (map.has("network_profile")) {
    const YamlField field = map["network_profile"];
    island.network_profile = network_profile(field);
    if (island.network_profile->gpus_per_node != island.gpus_per_node)
      throw field.error("was measured with " + std::to_string(island.network_profile->gpus_per_node) +
                        " GPUs per node, but the island has " + std::to_string(island.gpus_per_node));
  }

  island.price_usd_per_gpu_hour = island.gpu.price_usd_per_gpu_hour;
  // price_model: which of the GPU's prices the island pays (docs/model.md §11.5).
  if (map.has("price_model")) {
    const std::string model_name = map["price_model"].as_string();
    const auto committed = [&](double price, const char* key) {
      if (price <= 0)
        throw map["price_model"].error("but no " + std::string(key) + " is known for GPU " +
                                        std::string(island.gpu.name.view()) + " in the catalog");
      if (island.spot) throw map["price_model"].error("contradicts " + map.child_path("spot") + ": true");
      island.price_usd_per_gpu_hour = price;
    };
    if (model_name == "spot") {
      island.spot = true;
    } else if (model_name == "committed_1y") {
      committed(entry.committed_1y_price_usd_per_gpu_hour, "committed_1y_price_usd_per_gpu_hour");
    } else if (model_name == "committed_3y") {
      committed(entry.committed_3y_price_usd_per_gpu_hour, "committed_3y_price_usd_per_gpu_hour");
    } else if (model_name == "on_demand") {
      if (island.spot) throw map["price_model"].error("contradicts " + map.child_path("spot") + ": true");
    } else {
      throw map["price_model"].error("is not one of on_demand, spot, committed_1y, committed_3y");
    }
  }
  if (island.spot) {
    if (island.gpu.spot_price_usd_per_gpu_hour <= 0)
      throw map["spot"].error("but no spot price is known for GPU " + std::string(island.gpu.name.view()) +
                              "; set " + map.child_path("spot_price_usd_per_gpu_hour"));
    island.price_usd_per_gpu_hour = island.gpu.spot_price_usd_per_gpu_hour;
  }
  return island;
}

}  // namespace shardmeter::cli
