// cluster: the island entries, the default WAN between islands, and per-pair link overrides.
#include "src/scenario/parse_cluster.hpp"

#include "model/units.hpp"
#include "src/scenario/parse_island.hpp"
#include "src/scenario/scenario_schema.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

// Reads WAN fields present in `map` over `link` (which holds the defaults).
void read_wan_fields(const YamlMap& map, m::WanLink& link) {
  double v = 0;
  if (map.read("bandwidth_gbps", v, Range::positive())) link.bytes_per_s = m::gbit_per_s_to_bytes_per_s(v);
  if (map.read("latency_ms", v, Range::at_least(0))) link.latency_s = m::ms_to_s(v);
  if (map.read("egress_usd_per_gb", v, Range::at_least(0))) link.egress_usd_per_byte = v / m::kGB;
  map.read("efficiency", link.efficiency, Range::fraction());
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

void parse_links(const YamlField& field, m::ClusterSpec& cluster) {
  if (!field.node().IsSequence()) throw field.error("is not a list of links");
  if (field.node().size() > static_cast<std::size_t>(m::kMaxLinkOverrides))
    throw field.error("has " + std::to_string(field.node().size()) + " entries; at most " +
                      std::to_string(m::kMaxLinkOverrides) + " link overrides are supported");
  const auto keys = key_names({Section::link_override});
  for (std::size_t i = 0; i < field.node().size(); ++i) {
    const YamlMap map(YamlField(field.source(), field.node()[i], field.path() + "." + std::to_string(i)), keys);
    for (std::string_view required : {"from", "to"})
      if (!map.has(required)) throw map.missing(required, "is required (an island name or index)");
    if (!cluster.has_wan && !map.has("bandwidth_gbps"))
      throw map.missing("bandwidth_gbps", "is required (there is no cluster.wan to inherit it from)");
    m::LinkOverride& o = cluster.links[static_cast<std::size_t>(cluster.link_overrides++)];
    o.from = island_ref(map["from"], cluster);
    o.to = island_ref(map["to"], cluster);
    if (o.from == o.to) throw map["to"].error("is the same island as " + map.child_path("from"));
    o.link = cluster.wan;  // unset fields inherit cluster.wan's
    read_wan_fields(map, o.link);
  }
}

}  // namespace

void parse_cluster(const YamlField& field, const Catalog& catalog, m::ClusterSpec& out) {
  const auto keys = key_names({Section::cluster});
  const YamlMap cluster(field, keys);
  if (!cluster.has("islands")) throw cluster.missing("islands", "is required (a list of island entries)");
  const YamlField islands = cluster["islands"];
  if (islands.is_null() || !islands.node().IsSequence()) throw islands.error("is not a list of islands");
  const std::size_t n = islands.node().size();
  if (n == 0) throw islands.error("is empty; at least one island is required");
  if (n > static_cast<std::size_t>(m::kMaxIslands))
    throw islands.error("has " + std::to_string(n) + " entries; at most " + std::to_string(m::kMaxIslands) +
                        " island entries are supported (use count: for identical islands)");
  for (std::size_t i = 0; i < n; ++i) {
    const YamlField island(islands.source(), islands.node()[i], islands.path() + "." + std::to_string(i));
    out.islands[i] = parse_island(island, static_cast<int>(i), catalog);
    for (std::size_t j = 0; j < i; ++j)
      if (out.islands[j].name == out.islands[i].name)
        throw YamlMap(island, key_names({Section::island, Section::gpu_fields}))["name"].error(
            "is already the name of cluster.islands." + std::to_string(j));
    out.island_entries = static_cast<int>(i + 1);
  }

  if (cluster.has("wan")) {
    const YamlMap wan(cluster["wan"], key_names({Section::wan}));
    if (!wan.has("bandwidth_gbps")) throw wan.missing("bandwidth_gbps", "is required");
    read_wan_fields(wan, out.wan);
    out.has_wan = true;
  }
  if (cluster.has("links")) parse_links(cluster["links"], out);
}

}  // namespace shardmeter::cli
