#include "src/import/hf_import.hpp"

#include <fmt/format.h>

#include "src/scenario/hf_config.hpp"

namespace shardmeter::cli {

ImportedScenario import_hf(const std::string& path, long long seq_len) {
  const HfModel hf = read_hf_config(path);
  ImportedScenario out;
  out.framework = "hf";
  out.source = path;
  out.has_model = true;
  // model: is replaced as a whole: a base scenario's preset must not fill what the file leaves to defaults.
  out.set("model", "{}", SourceLocation{path, 0, 0}, "model_type " + hf.model_type);
  for (const HfModelKey& k : hf.keys) {
    const std::string text = short_excerpt(hf.json.text(k.json_path), 40);
    out.set("model." + k.key, k.value, hf.json.at(k.json_path), k.json_path + (text.empty() ? "" : " = " + text));
  }
  if (seq_len > 0) out.set("model.seq_len", std::to_string(seq_len), SourceLocation{"--seq-len", 0, 0},
                           "--seq-len " + std::to_string(seq_len));
  else out.notes.push_back("model.seq_len is not in config.json (max_position_embeddings is the context limit): "
                           "give --seq-len N or --set model.seq_len=N");
  for (const std::string& a : hf.approximations) out.notes.push_back(a);
  if (!hf.unmodelled.empty()) {
    std::string names;
    for (const std::string& u : hf.unmodelled) names += (names.empty() ? "" : ", ") + u;
    out.notes.push_back("read, and left out as they change no cost: " + names);
  }
  return out;
}

std::string hf_model_block(const ImportedScenario& imported) {
  std::string out = fmt::format("# Imported by `shardmeter import hf` from {} (docs/import.md)\n", imported.source);
  for (const std::string& note : imported.notes) out += "# note: " + note + "\n";
  out += "model:\n";
  for (const ImportedKey& k : imported.keys) {
    if (k.key == "model") continue;
    out += fmt::format("  {}: {}  # {}: {}\n", k.key.substr(6), k.value, k.from.str(), k.said);
  }
  return out;
}

}  // namespace shardmeter::cli
