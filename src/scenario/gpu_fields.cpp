#include "src/scenario/gpu_fields.hpp"

#include <vector>

#include "model/units.hpp"
#include "src/scenario/scenario_schema.hpp"
#include "src/scenario/zeroed.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

GpuEntry blank_gpu_entry() {
  GpuEntry entry;
  reset_zeroed(entry.gpu);
  return entry;
}

namespace {

const LinkEntry& find_link(const YamlField& field, const std::map<std::string, LinkEntry>& links) {
  const std::string name = field.as_string();
  if (const auto it = links.find(name); it != links.end()) return it->second;
  std::vector<std::string> known;
  for (const auto& [key, link] : links) known.push_back(key);
  const std::string suggestion = closest_match(name, known);
  throw field.error("is not a known link type" + (suggestion.empty() ? "" : " (did you mean " + suggestion + "?)") +
                    "; known: " + join(known));
}

void apply_efficiency(const YamlMap& map, m::GpuSpec& gpu) {
  const auto keys = key_names({Section::efficiency});
  const YamlMap eff(map["efficiency"], keys);
  eff.read("gemm", gpu.gemm_efficiency, Range::fraction());
  eff.read("gemm_half_dim", gpu.gemm_half_dim, Range::at_least(0));
  eff.read("attention", gpu.attention_efficiency, Range::fraction());
  eff.read("hbm", gpu.hbm_efficiency, Range::fraction());
  eff.read("overlap_slowdown", gpu.overlap_slowdown, Range::between(0, 1));  // 0: no contention
  double overhead_us = 0;
  if (eff.read("kernel_overhead_us", overhead_us, Range::at_least(0))) gpu.kernel_overhead_s = m::us_to_s(overhead_us);
}

void apply_sources(const YamlField& field, std::map<std::string, std::string>& sources) {
  if (field.is_null()) return;
  if (!field.node().IsMap()) throw field.error("is not a map of field -> citation");
  for (const auto& entry : field.node()) {
    const YamlField key(field.source(), entry.first, field.path());
    const YamlField text(field.source(), entry.second, field.path() + "." + key.as_string());
    sources[key.as_string()] = text.as_string();
  }
}

}  // namespace

m::LinkSpec resolve_link(const YamlField& field, const std::map<std::string, LinkEntry>& links, double bytes_per_s) {
  const LinkEntry& link = find_link(field, links);
  m::LinkSpec spec{};
  spec.type.assign(field.as_string());
  spec.bytes_per_s = bytes_per_s;
  spec.efficiency = link.efficiency;
  spec.latency_s = link.latency_s;
  return spec;
}

void apply_gpu_fields(const YamlMap& map, GpuEntry& entry, const std::map<std::string, LinkEntry>& links) {
  m::GpuSpec& gpu = entry.gpu;
  double v = 0;
  if (map.read("bf16_tflops", v, Range::positive())) gpu.peak_flops_per_s = m::tflops_to_flops_per_s(v);
  if (map.read("fp8_tflops", v, Range::at_least(0))) gpu.peak_fp8_flops_per_s = m::tflops_to_flops_per_s(v);
  if (map.read("hbm_gib", v, Range::positive())) gpu.hbm_bytes = v * m::kGiB;  // HBM capacities are binary: "80 GB" = 80 GiB
  if (map.read("hbm_tbps", v, Range::positive())) gpu.hbm_bytes_per_s = m::tbyte_per_s_to_bytes_per_s(v);
  if (map.read("scaleup_gbps", v, Range::positive())) gpu.scaleup.bytes_per_s = m::gbyte_per_s_to_bytes_per_s(v);
  if (map.has("scaleup_link")) gpu.scaleup = resolve_link(map["scaleup_link"], links, gpu.scaleup.bytes_per_s);
  map.read("scaleup_domain_gpus", gpu.scaleup_domain_gpus, Range::between(1, 1 << 20));
  map.read("gpus_per_node", entry.gpus_per_node, Range::between(1, 1024));
  map.read("node_network_gbps", entry.node_network_gbps, Range::at_least(0));
  if (map.has("scaleout_link")) {
    find_link(map["scaleout_link"], links);
    entry.scaleout_link = map["scaleout_link"].as_string();
  }
  map.read("price_usd_per_gpu_hour", gpu.price_usd_per_gpu_hour, Range::at_least(0));
  map.read("spot_price_usd_per_gpu_hour", gpu.spot_price_usd_per_gpu_hour, Range::at_least(0));
  map.read("price_high_usd_per_gpu_hour", entry.price_high_usd_per_gpu_hour, Range::at_least(0));
  if (map.has("efficiency")) apply_efficiency(map, gpu);
  if (map.has("sources")) apply_sources(map["sources"], entry.sources);
}

}  // namespace shardmeter::cli
