// model: the transformer's dimensions. A preset (scenarios/models/<name>.yaml) supplies values first; the
// scenario's explicit keys override them; unset derived keys (kv_heads, head_dim, ffn_hidden) get their defaults.
#include "src/scenario/parse_model.hpp"

#include <map>
#include <optional>

#include "src/scenario/scenario_schema.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

constexpr int kMaxDim = 10'000'000;

// A model key as given, remembered with its field (for error positions after merging) and its origin.
struct GivenKey {
  YamlField field;
  bool from_preset;
};
using GivenKeys = std::map<std::string, GivenKey, std::less<>>;

void apply_model_keys(const YamlMap& map, bool from_preset, m::ModelSpec& model, GivenKeys& given) {
  const Range count = Range::between(1, kMaxDim);
  map.read("layers", model.layers, count);
  map.read("hidden", model.hidden, count);
  map.read("heads", model.heads, count);
  map.read("kv_heads", model.kv_heads, count);
  map.read("head_dim", model.head_dim, count);
  map.read("ffn_hidden", model.ffn_hidden, count);
  map.read("vocab", model.vocab, Range::between(1, 100'000'000));
  map.read("seq_len", model.seq_len, Range::between(1, 100'000'000));
  map.read_enum("ffn_type", model.ffn_type);
  map.read_enum("norm", model.norm);
  map.read_enum("position_embedding", model.position_embedding);
  map.read("bias", model.bias);
  map.read("tied_embeddings", model.tied_embeddings);
  map.read("dropout", model.dropout);
  for (const KeySpec& key : section_keys(Section::model))
    if (key.name != "preset" && map.has(key.name))
      given.insert_or_assign(std::string(key.name), GivenKey{map[key.name], from_preset});
}

// SwiGLU MLPs keep the parameter count of a 4h GELU MLP with 2/3 of the width, rounded up to a multiple of
// 256 (LLaMA, Touvron et al. 2023, §2.2; Llama-2-7B: 8*4096/3 -> 11008).
int default_ffn_hidden(const m::ModelSpec& model) {
  if (model.ffn_type == m::FfnType::gelu) return 4 * model.hidden;
  const std::int64_t unit = 3 * 256;
  return static_cast<int>((8LL * model.hidden + unit - 1) / unit * 256);
}

}  // namespace

void parse_model(const YamlField& field, const Catalog& catalog, m::ModelSpec& out) {
  const auto keys = key_names({Section::model});
  const YamlMap model(field, keys);
  GivenKeys given;

  std::optional<YamlSource> preset_source;  // outlives the fields read from the preset file
  if (model.has("preset")) {
    const YamlField preset = model["preset"];
    const std::string name = preset.as_string();
    const auto it = catalog.model_presets.find(name);
    if (it == catalog.model_presets.end()) {
      std::vector<std::string> known;
      for (const auto& [key, node] : catalog.model_presets) known.push_back(key);
      const std::string suggestion = closest_match(name, known);
      throw preset.error("is not a known model preset" +
                         (suggestion.empty() ? "" : " (did you mean " + suggestion + "?)") + "; known: " + join(known));
    }
    preset_source = YamlSource{catalog.preset_files.at(name), nullptr};
    std::vector<std::string_view> preset_keys;
    for (std::string_view key : keys)
      if (key != "preset") preset_keys.push_back(key);
    apply_model_keys(YamlMap(YamlField(*preset_source, it->second, "model"), preset_keys), true, out, given);
  }
  apply_model_keys(model, false, out, given);
  // " (from model.preset = NAME)" for a value the preset gave, to follow the value it is compared with.
  const auto origin = [&](std::string_view key) {
    const auto it = given.find(key);
    return it != given.end() && it->second.from_preset ? " (from model.preset = " + model["preset"].as_string() + ")"
                                                       : std::string();
  };

  for (std::string_view required : {"layers", "hidden", "heads", "vocab", "seq_len"})
    if (given.find(required) == given.end())
      throw model.missing(required, "is required (give it, or a model.preset that sets it)");

  if (given.find("kv_heads") == given.end()) out.kv_heads = out.heads;
  if (given.find("head_dim") == given.end()) {
    if (out.hidden % out.heads != 0)
      throw given.at("heads").field.error("does not divide model.hidden = " + std::to_string(out.hidden) +
                                          origin("hidden") + "; give model.head_dim explicitly");
    out.head_dim = out.hidden / out.heads;
  }
  if (given.find("ffn_hidden") == given.end()) out.ffn_hidden = default_ffn_hidden(out);

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
}

}  // namespace shardmeter::cli
