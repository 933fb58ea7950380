#include "src/scenario/price_overrides.hpp"

#include <array>
#include <string_view>

#include "src/scenario/key_reader.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace {
constexpr std::array<std::string_view, 1> kTop = {"prices"};
}  // namespace

std::vector<PriceOverride> load_price_overrides(const std::string& path, const Catalog& catalog,
                                                const KeyTable& keys) {
  std::string text;
  const YamlSource source{path, nullptr};
  const YAML::Node root = load_yaml_file(path, text);
  const YamlMap top(YamlField(source, root, ""), kTop);
  if (!top.has("prices")) throw top.missing("prices", "is required (a map of GPU name -> prices)");
  const YamlField entries = top["prices"];
  if (!entries.node().IsMap()) throw entries.error("is not a map of GPU name -> prices");

  std::vector<std::string> known;
  for (const auto& [name, entry] : catalog.gpus) known.push_back(name);
  std::vector<PriceOverride> prices;
  for (const auto& item : entries.node()) {
    const YamlField key(source, item.first, "prices");
    const std::string gpu = key.as_string();
    if (catalog.gpus.count(gpu) == 0) {
      const std::string near = closest_match(gpu, known);
      throw key.error("is not a GPU of the catalog" + (near.empty() ? "" : " (did you mean " + near + "?)") +
                      "; known: " + join(known));
    }
    const YamlMap map = section_map(keys, YamlField(source, item.second, "prices." + gpu), {Section::price_file});
    const auto read = [&](std::string_view key, std::optional<double>& out) {
      if (map.has(key)) out = map[key].as_double(keys.key(Section::price_file, key).bounds);
    };
    PriceOverride p;
    p.gpu = gpu;
    read("price_usd_per_gpu_hour", p.price_usd_per_gpu_hour);
    read("spot_price_usd_per_gpu_hour", p.spot_price_usd_per_gpu_hour);
    if (!p.price_usd_per_gpu_hour && !p.spot_price_usd_per_gpu_hour)
      throw map.missing("price_usd_per_gpu_hour", "or spot_price_usd_per_gpu_hour is required");
    prices.push_back(std::move(p));
  }
  return prices;
}

void apply_price_overrides(Catalog& catalog, const std::vector<PriceOverride>& prices) {
  for (const PriceOverride& p : prices) {
    GpuEntry& entry = catalog.gpus.at(p.gpu);
    model::GpuSpec& gpu = entry.gpu;
    if (p.price_usd_per_gpu_hour) {
      // Committed prices are discounts on the on-demand quote (docs/model.md §11.5): they follow it.
      const double old_price = gpu.price_usd_per_gpu_hour;
      const double scale = old_price > 0 ? *p.price_usd_per_gpu_hour / old_price : 1.0;
      entry.committed_1y_price_usd_per_gpu_hour *= scale;
      entry.committed_3y_price_usd_per_gpu_hour *= scale;
      gpu.price_usd_per_gpu_hour = *p.price_usd_per_gpu_hour;
    }
    if (p.spot_price_usd_per_gpu_hour) gpu.spot_price_usd_per_gpu_hour = *p.spot_price_usd_per_gpu_hour;
  }
}

}  // namespace shardmeter::cli
