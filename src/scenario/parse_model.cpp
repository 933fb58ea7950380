// model: the transformer's dimensions. A preset (scenarios/models/<name>.yaml) supplies values first; the
// scenario's explicit keys override them; unset keys with a derived default (kv_heads, head_dim, ffn_hidden: the
// key table says how) are computed last.
#include "src/scenario/parse_model.hpp"

#include <filesystem>
#include <map>
#include <optional>

#include <yaml-cpp/yaml.h>

#include "src/scenario/hf_config.hpp"
#include "src/scenario/key_reader.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

// A model key as given, remembered with its field (for error positions after merging) and its origin.
struct GivenKey {
  YamlField field;
  bool from_preset;                    // from model.preset or model.hf_config
  std::optional<SourceLocation> at{};  // model.hf_config: where the config.json field is
};
using GivenKeys = std::map<std::string, GivenKey, std::less<>>;

void apply_model_keys(const KeyTable& keys, const YamlMap& map, bool from_preset, m::ModelSpec& model,
                      GivenKeys& given) {
  read_keys(keys, Section::model, map, model);
  for (const KeySpec& key : keys.keys(Section::model))
    if (key.access != nullptr && map.has(key.name))
      given.insert_or_assign(std::string(key.name), GivenKey{map[key.name], from_preset});
}

// model.hf_config's path: relative to the scenario file's folder.
std::string hf_config_path(const YamlField& field) {
  const std::filesystem::path given(field.as_string());
  if (given.is_absolute()) return given.string();
  return (std::filesystem::path(field.source().file).parent_path() / given).lexically_normal().string();
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
      if (key != "preset" && key != "hf_config") preset_keys.push_back(key);
    apply_model_keys(keys, YamlMap(YamlField(*preset_source, found.model.node(), "model"), preset_keys), true, out, given);
  }
  std::optional<YamlSource> hf_source;
  std::optional<HfModel> hf;
  if (model.has("hf_config")) {
    const YamlField field = model["hf_config"];
    if (model.has("preset"))
      throw field.error("cannot be given with model.preset: each supplies the whole model (explicit keys override "
                        "either)");
    hf = read_hf_config(hf_config_path(field));
    hf_source = YamlSource{hf->json.file(), nullptr};
    for (const HfModelKey& k : hf->keys) {
      YAML::Node node(YAML::NodeType::Map);
      node[k.key] = k.value;
      const YamlField one(*hf_source, node, "model");
      try {
        read_keys(keys, Section::model, YamlMap(one, names), out);
      } catch (const ScenarioError& e) {
        throw ScenarioError(hf->json.at(k.json_path), k.json_path, hf->json.text(k.json_path),
                            "maps to model." + k.key + " = " + k.value + ", which " + e.problem());
      }
      given.insert_or_assign(k.key, GivenKey{YamlField(*hf_source, node[k.key], "model." + k.key), true,
                                             hf->json.at(k.json_path)});
    }
  }
  apply_model_keys(keys, model, false, out, given);
  const auto is_given = [&](std::string_view key) { return given.find(key) != given.end(); };
  // " (from model.preset = NAME)" for a value the preset gave, to follow the value it is compared with.
  const auto origin = [&](std::string_view key) {
    const auto it = given.find(key);
    if (it == given.end() || !it->second.from_preset) return std::string();
    return hf ? " (from model.hf_config " + it->second.at->str() + ")"
              : " (from model.preset = " + model["preset"].as_string() + ")";
  };
  // An error about a key's value, at the scenario, preset or config.json line that gave it.
  const auto blame = [&](std::string_view key, const std::string& problem) {
    const GivenKey& g = given.at(std::string(key));
    if (g.at) return ScenarioError(*g.at, g.field.path(), node_text(g.field.node()), problem);
    return g.field.error(problem);
  };

  if (hf && !is_given("seq_len"))
    throw model.missing("seq_len", "is required with model.hf_config: config.json's max_position_embeddings is the "
                                   "model's context limit, not the training sequence length (docs/import.md)");
  for (const KeySpec& key : keys.keys(Section::model))
    if (key.fallback.kind == KeyDefault::Kind::required && !is_given(key.name))
      throw model.missing(key.name, std::string(key.fallback.problem));
  if (!is_given("head_dim") && out.hidden % out.heads != 0)
    throw blame("heads", "does not divide model.hidden = " + std::to_string(out.hidden) +
                                        origin("hidden") + "; give model.head_dim explicitly");
  apply_derived(keys, Section::model, out, is_given);

  // Grouped-query attention shares each K/V head among heads / kv_heads query heads. Blame the key the user
  // wrote in the scenario (kv_heads first); a preset's own inconsistency is reported in the preset file.
  if (out.kv_heads > out.heads || out.heads % out.kv_heads != 0) {
    const auto kv = given.find("kv_heads");
    const bool blame_heads = (kv == given.end() || kv->second.from_preset) && !given.at("heads").from_preset;
    if (blame_heads)
      throw blame("heads", "is not a multiple of model.kv_heads = " + std::to_string(out.kv_heads) +
                                          origin("kv_heads"));
    throw blame("kv_heads", "does not divide model.heads = " + std::to_string(out.heads) + origin("heads"));
  }

  // Mixture of experts: a token goes to at most all routed experts; some block must be an MoE block.
  if (out.moe.experts > 0 && out.moe.top_k > out.moe.experts) {
    if (is_given("top_k"))
      throw blame("top_k", "exceeds model.experts = " + std::to_string(out.moe.experts) +
                                          origin("experts"));
    throw blame("experts", "is fewer than model.top_k = " + std::to_string(out.moe.top_k) +
                                          " (its default); give model.top_k");
  }
  if (out.moe.experts > 0 && out.moe.dense_layers >= out.layers && is_given("dense_layers"))
    throw blame("dense_layers", "leaves no MoE block: it is not smaller than model.layers = " +
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
