// cluster: the island entries, the default WAN between islands, and per-pair link overrides.
#include "src/scenario/parse_cluster.hpp"

#include "model/comm/network_profile.hpp"
#include "src/scenario/key_reader.hpp"
#include "src/scenario/network_profiles.hpp"
#include "src/scenario/parse_island.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

// network_profile on a WAN link (docs/model.md §8.7): its node counts are islands, and it must measure the all-reduce
// the ring runs.
void read_link_profile(const YamlMap& map, m::WanLink& link) {
  if (!map.has("network_profile")) return;
  const YamlField field = map["network_profile"];
  link.profile = network_profile(field);
  if (link.profile->op(m::NetworkOp::all_reduce).runs == 0)
    throw field.error("has no all_reduce_perf runs: a WAN link's profile must measure the all-reduce across islands");
}

// An island entry named by its name or its index.
int island_ref(const YamlField& field, const m::ClusterSpec& cluster) {
  const std::string text = field.as_string();
  std::vector<std::string> names;
  for (int i = 0; i < cluster.island_entries; ++i) {
    const std::string name(cluster.islands[static_cast<std::size_t>(i)].name.view());
    if (name == text || std::to_string(i) == text) return i;
    names.push_back(name);
  }
  throw field.error("is not an island name or index; islands: " + join(names));
}

void parse_links(const YamlField& field, m::ClusterSpec& cluster, const KeyTable& keys) {
  if (!field.node().IsSequence()) throw field.error("is not a list of links");
  if (field.node().size() > static_cast<std::size_t>(m::kMaxLinkOverrides))
    throw field.error("has " + std::to_string(field.node().size()) + " entries; at most " +
                      std::to_string(m::kMaxLinkOverrides) + " link overrides are supported");
  for (std::size_t i = 0; i < field.node().size(); ++i) {
    const YamlMap map = section_map(
        keys, YamlField(field.source(), field.node()[i], field.path() + "." + std::to_string(i)), {Section::link_override});
    check_required(keys, Section::link_override, map);
    if (!cluster.has_wan && !map.has("bandwidth_gbps"))
      throw map.missing("bandwidth_gbps", "is required (there is no cluster.wan to inherit it from)");
    m::LinkOverride& o = cluster.links[static_cast<std::size_t>(cluster.link_overrides++)];
    o.from = island_ref(map["from"], cluster);
    o.to = island_ref(map["to"], cluster);
    if (o.from == o.to) throw map["to"].error("is the same island as " + map.child_path("from"));
    o.link = cluster.wan;  // unset fields inherit cluster.wan's
    read_keys(keys, Section::link_override, map, o.link);
    read_link_profile(map, o.link);
  }
}

}  // namespace

void parse_cluster(const YamlField& field, const Catalog& catalog, m::ClusterSpec& out, const KeyTable& keys) {
  const YamlMap cluster = section_map(keys, field, {Section::cluster});
  check_required(keys, Section::cluster, cluster);
  const YamlField islands = cluster["islands"];
  if (islands.is_null() || !islands.node().IsSequence()) throw islands.error("is not a list of islands");
  const std::size_t n = islands.node().size();
  if (n == 0) throw islands.error("is empty; at least one island is required");
  if (n > static_cast<std::size_t>(m::kMaxIslands))
    throw islands.error("has " + std::to_string(n) + " entries; at most " + std::to_string(m::kMaxIslands) +
                        " island entries are supported (use count: for identical islands)");
  for (std::size_t i = 0; i < n; ++i) {
    const YamlField island(islands.source(), islands.node()[i], islands.path() + "." + std::to_string(i));
    out.islands[i] = parse_island(island, static_cast<int>(i), catalog, keys);
    for (std::size_t j = 0; j < i; ++j)
      if (out.islands[j].name == out.islands[i].name)
        throw section_map(keys, island, {Section::island, Section::gpu_fields})["name"].error(
            "is already the name of cluster.islands." + std::to_string(j));
    out.island_entries = static_cast<int>(i + 1);
  }

  apply_defaults(keys, Section::wan, out.wan);
  if (cluster.has("wan")) {
    const YamlMap wan = section_map(keys, cluster["wan"], {Section::wan});
    check_required(keys, Section::wan, wan);
    read_keys(keys, Section::wan, wan, out.wan);
    read_link_profile(wan, out.wan);
    out.has_wan = true;
  }
  if (cluster.has("links")) parse_links(cluster["links"], out, keys);
}

}  // namespace shardmeter::cli
