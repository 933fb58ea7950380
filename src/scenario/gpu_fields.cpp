#include "src/scenario/gpu_fields.hpp"

#include <algorithm>
#include <vector>

#include "src/scenario/calibration_status.hpp"
#include "src/scenario/key_reader.hpp"
#include "src/scenario/zeroed.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

GpuEntry blank_gpu_entry(const KeyTable& keys) {
  GpuEntry entry;
  reset_zeroed(entry.gpu);
  for (Section section : {Section::gpu_fields, Section::gpu_catalog, Section::efficiency})
    apply_defaults(keys, section, entry);
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

void apply_sources(const YamlField& field, std::map<std::string, std::string>& sources) {
  if (field.is_null()) return;
  if (!field.node().IsMap()) throw field.error("is not a map of field -> citation");
  for (const auto& entry : field.node()) {
    const YamlField key(field.source(), entry.first, field.path());
    const YamlField text(field.source(), entry.second, field.path() + "." + key.as_string());
    sources[key.as_string()] = text.as_string();
  }
}

// efficiency.stacks: stack name -> efficiency keys, each read over the entry's own values.
void apply_stacks(const YamlField& field, GpuEntry& entry, const KeyTable& keys) {
  if (field.is_null()) return;
  if (!field.node().IsMap()) throw field.error("is not a map of stack -> efficiency constants");
  for (const auto& item : field.node()) {
    const YamlField name(field.source(), item.first, field.path());
    const YamlField value(field.source(), item.second, field.path() + "." + name.as_string());
    const m::Stack stack = name.as_enum<m::Stack>();
    GpuEntry scratch = entry;
    const YamlMap constants = section_map(keys, value, {Section::efficiency});
    if (constants.has("stacks")) throw constants["stacks"].error("cannot nest inside a stack");
    read_keys(keys, Section::efficiency, constants, scratch);
    entry.by_stack[stack] = StackEfficiency{scratch.gpu.gemm_efficiency, scratch.gpu.gemm_half_dim,
                                            scratch.gpu.attention_efficiency, scratch.gpu.contention_scale};
  }
}

// calibration_stacks: the stacks the entry's `calibration` holds for. Each must be a stack name, listed once, with an
// `efficiency: stacks:` set of its own (a fit covers a stack only through the constants fitted for it), and the
// status must be one a fit has (fitted or family).
void apply_calibration_stacks(const YamlField& field, GpuEntry& entry) {
  if (field.is_null() || !field.node().IsSequence() || field.node().size() == 0)
    throw field.error("is not a list of stack names (plan.stack); leave it out when the fit covers every stack");
  if (parse_calibration_status(entry.calibration) == CalibrationStatus::uncalibrated)
    throw field.error("is given with calibration: uncalibrated (an uncalibrated type is uncalibrated on every stack)");
  entry.calibration_stacks.clear();
  for (std::size_t i = 0; i < field.node().size(); ++i) {
    const YamlField item(field.source(), field.node()[i], field.path() + "." + std::to_string(i));
    const m::Stack stack = item.as_enum<m::Stack>();
    if (std::find(entry.calibration_stacks.begin(), entry.calibration_stacks.end(), stack) !=
        entry.calibration_stacks.end())
      throw item.error("is listed twice");
    if (!entry.by_stack.count(stack))
      throw item.error("has no efficiency.stacks set of its own: the fit cannot cover it");
    entry.calibration_stacks.push_back(stack);
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

void apply_gpu_fields(const YamlMap& map, GpuEntry& entry, const std::map<std::string, LinkEntry>& links,
                      const KeyTable& keys) {
  read_keys(keys, Section::gpu_fields, map, entry);
  read_keys(keys, Section::gpu_catalog, map, entry);  // absent from an island's overrides: its map rejects them
  if (map.has("calibration") && !parse_calibration_status(entry.calibration))
    throw map["calibration"].error("is not fitted, family or uncalibrated");
  // The scale-up link takes the bandwidth read above.
  if (map.has("scaleup_link")) entry.gpu.scaleup = resolve_link(map["scaleup_link"], links, entry.gpu.scaleup.bytes_per_s);
  if (map.has("scaleout_link")) {
    find_link(map["scaleout_link"], links);
    entry.scaleout_link = map["scaleout_link"].as_string();
  }
  if (map.has("efficiency")) {
    const YamlMap efficiency = section_map(keys, map["efficiency"], {Section::efficiency});
    read_keys(keys, Section::efficiency, efficiency, entry);
    if (efficiency.has("stacks")) apply_stacks(efficiency["stacks"], entry, keys);
  }
  if (map.has("calibration_stacks")) apply_calibration_stacks(map["calibration_stacks"], entry);
  if (map.has("sources")) apply_sources(map["sources"], entry.sources);
}

}  // namespace shardmeter::cli
