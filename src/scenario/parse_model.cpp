// model: the transformer's dimensions. A preset (scenarios/models/<name>.yaml) supplies values first; the
// scenario's explicit keys override them; unset keys with a derived default (kv_heads, head_dim, ffn_hidden: the
// key table says how) are computed last.
#include "src/scenario/parse_model.hpp"

#include <map>
#include <optional>

#include <yaml-cpp/yaml.h>

#include "src/scenario/key_reader.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

// A model key as given, remembered with its field (for error positions after merging) and its origin.
struct GivenKey {
  YamlField field;
  bool from_preset;
};
using GivenKeys = std::map<std::string, GivenKey, std::less<>>;

void apply_model_keys(const KeyTable& keys, const YamlMap& map, bool from_preset, m::ModelSpec& model,
                      GivenKeys& given) {
  read_keys(keys, Section::model, map, model);
  for (const KeySpec& key : keys.keys(Section::model))
    if (key.access != nullptr && map.has(key.name))
      given.insert_or_assign(std::string(key.name), GivenKey{map[key.name], from_preset});
}

}  // namespace

void parse_model(const YamlField& field, const Catalog& catalog, m::ModelSpec& out, const KeyTable& keys) {
  const std::vector<std::string_view> names = keys.names({Section::model});
  const YamlMap model(field, names);
  apply_defaults(keys, Section::model, out);
  GivenKeys given;

  std::optional<YamlSource> preset_source;  // outlives the fields read from the preset file
  if (model.has("preset")) {
    const YamlField preset = model["preset"];
    const std::string name = preset.as_string();
    if (!catalog.presets.has(name)) {
      const std::vector<std::string>& known = catalog.presets.names();
      const std::string suggestion = closest_match(name, known);
      throw preset.error("is not a known model preset" +
                         (suggestion.empty() ? "" : " (did you mean " + suggestion + "?)") + "; known: " + join(known));
    }
    const Preset& found = catalog.presets.get(name);
    preset_source = YamlSource{found.file, nullptr};
    std::vector<std::string_view> preset_keys;
    for (std::string_view key : names)
      if (key != "preset") preset_keys.push_back(key);
    apply_model_keys(keys, YamlMap(YamlField(*preset_source, found.model.node(), "model"), preset_keys), true, out, given);
  }
  apply_model_keys(keys, model, false, out, given);
  const auto is_given = [&](std::string_view key) { return given.find(key) != given.end(); };
  // " (from model.preset = NAME)" for a value the preset gave, to follow the value it is compared with.
  const auto origin = [&](std::string_view key) {
    const auto it = given.find(key);
    return it != given.end() && it->second.from_preset ? " (from model.preset = " + model["preset"].as_string() + ")"
                                                       : std::string();
  };

  for (const KeySpec& key : keys.keys(Section::model))
    if (key.fallback.kind == KeyDefault::Kind::required && !is_given(key.name))
      throw model.missing(key.name, std::string(key.fallback.problem));
  if (!is_given("head_dim") && out.hidden % out.heads != 0)
    throw given.at("heads").field.error("does not divide model.hidden = " + std::to_string(out.hidden) +
                                        origin("hidden") + "; give model.head_dim explicitly");
  apply_derived(keys, Section::model, out, is_given);

  // Grouped-query attention shares each K/V head among heads / kv_heads query heads. Blame the key the user
  // wrote in the scenario (kv_heads first); a preset's own inconsistency is reported in the preset file.
  if (out.kv_heads > out.heads || out.heads % out.kv_heads != 0) {
    const auto kv = given.find("kv_heads");
    const bool blame_heads = (kv == given.end() || kv->second.from_preset) && !given.at("heads").from_preset;
    if (blame_heads)
      throw given.at("heads").field.error("is not a multiple of model.kv_heads = " + std::to_string(out.kv_heads) +
                                          origin("kv_heads"));
    throw kv->second.field.error("does not divide model.heads = " + std::to_string(out.heads) + origin("heads"));
  }

  // Mixture of experts: a token goes to at most all routed experts; some block must be an MoE block.
  if (out.moe.experts > 0 && out.moe.top_k > out.moe.experts) {
    if (is_given("top_k"))
      throw given.at("top_k").field.error("exceeds model.experts = " + std::to_string(out.moe.experts) +
                                          origin("experts"));
    throw given.at("experts").field.error("is fewer than model.top_k = " + std::to_string(out.moe.top_k) +
                                          " (its default); give model.top_k");
  }
  if (out.moe.experts > 0 && out.moe.dense_layers >= out.layers && is_given("dense_layers"))
    throw given.at("dense_layers").field.error("leaves no MoE block: it is not smaller than model.layers = " +
                                               std::to_string(out.layers) + origin("layers"));
}

m::ModelSpec preset_model(const Catalog& catalog, const std::string& name, const KeyTable& keys) {
  YAML::Node node(YAML::NodeType::Map);
  node["preset"] = name;
  const YamlSource source{"model.preset", nullptr};
  m::ModelSpec spec{};
  parse_model(YamlField(source, node, "model"), catalog, spec, keys);
  return spec;
}

}  // namespace shardmeter::cli
