#pragma once
// model.hf_config: a Hugging Face `config.json` read as model keys (docs/import.md has the mapping tables). Each
// field either maps to a model key, is listed as leaving the cost unchanged (token ids, initialisation, norm
// epsilon, RoPE base, the context limit, ...), or is an error at its line: nothing is guessed. model.seq_len is never
// taken from the file (max_position_embeddings is the model's context limit, not the training sequence length).
#include <string>
#include <vector>

#include "src/scenario/located_json.hpp"

namespace shardmeter::cli {

// One model key the file gives, as a scenario file would write it, with the config.json field it came from.
struct HfModelKey {
  std::string key;        // "kv_heads"
  std::string value;      // "8"
  std::string json_path;  // "num_key_value_heads" (its line: HfModel::json.at(json_path))
};

struct HfModel {
  LocatedJson json;
  std::string model_type;
  std::vector<HfModelKey> keys;       // in the order of the key table
  std::vector<std::string> unmodelled;  // fields read that change nothing ShardMeter costs, "rope_theta"
  std::vector<std::string> approximations;  // what the mapping leaves out, in words (printed by `import hf`)
  const HfModelKey* find(std::string_view key) const;
};

// The model families read (model_type values), for messages and docs.
const std::vector<std::string>& hf_model_types();

// Reads `path`. ScenarioError at the field's line for a field that cannot be mapped, a missing required field, a
// value of the wrong type, or an unknown model_type.
HfModel read_hf_config(const std::string& path);
HfModel read_hf_config_text(const std::string& text, const std::string& file);

}  // namespace shardmeter::cli
