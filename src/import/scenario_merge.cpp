#include "src/import/scenario_merge.hpp"

#include <cmath>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace shardmeter::cli {

namespace {

constexpr std::string_view kImportMark = "import#";

std::string base_text(const ImportedScenario& imported, const ImportBase& base) {
  const std::string name = base.name.empty() ? "imported-" + imported.framework : base.name;
  return fmt::format("name: {}\nmodel: {{}}\ntraining: {{}}\ncluster: {{islands: []}}\n", name);
}

// An error about a value the import set, at the place the imported file says it.
ScenarioError located(const ScenarioError& e, const ImportedScenario& imported) {
  const std::string& file = e.where().file;
  const auto mark = file.find(kImportMark);
  if (file.rfind("--set ", 0) != 0 || mark == std::string::npos) return e;
  const std::size_t index = std::stoul(file.substr(mark + kImportMark.size()));
  if (index >= imported.keys.size()) return e;
  const ImportedKey& k = imported.keys[index];
  std::string subject = e.key();
  if (!e.value().empty()) subject += " = " + e.value();
  return ScenarioError(k.from, k.said, "", "(" + k.key + " = " + k.value + "): " + subject + " " + e.problem());
}

void apply_imported(ScenarioDocument& doc, const ImportedScenario& imported) {
  for (std::size_t i = 0; i < imported.keys.size(); ++i) {
    const ImportedKey& k = imported.keys[i];
    apply_override(doc, Override{k.key, k.value, std::string(kImportMark) + std::to_string(i)});
  }
}

std::string header(const ImportedScenario& imported, const ImportBase& base) {
  std::string h = fmt::format("# Imported by `shardmeter import {}` from {} (docs/import.md)\n", imported.framework,
                              imported.source);
  if (!base.scenario_path.empty()) h += "# base scenario: " + base.scenario_path + "\n";
  for (const std::string& note : imported.notes) h += "# note: " + note + "\n";
  h += "# from the file:\n";
  for (const ImportedKey& k : imported.keys)
    h += fmt::format("#   {} = {}  <- {}: {}\n", k.key, k.value, k.from.str(), k.said);
  for (const Override& o : base.overrides) h += fmt::format("#   {} = {}  <- --set {}\n", o.key, o.value, o.text);
  return h;
}

}  // namespace

void check_import_base(const ImportBase& base) {
  if (base.scenario_path.empty() && base.gpu.empty())
    throw InputError("shardmeter import: name the cluster: --scenario FILE, or --gpu TYPE with --nodes N or --gpus N");
  if (!base.gpu.empty() && (base.nodes > 0) == (base.gpus > 0))
    throw InputError("shardmeter import: --gpu " + base.gpu + " needs exactly one of --nodes N and --gpus N");
  if (base.gpu.empty() && (base.nodes > 0 || base.gpus > 0))
    throw InputError("shardmeter import: --nodes and --gpus need --gpu TYPE");
}

MergedScenario merge_import(const ImportedScenario& imported, const ImportBase& base, const Catalog& catalog) {
  check_import_base(base);

  ScenarioDocument doc = base.scenario_path.empty()
                             ? scenario_document_from_text("<import>", base_text(imported, base))
                             : read_scenario_document(base.scenario_path);
  if (!base.gpu.empty())
    apply_override(doc, Override{"cluster", fmt::format("{{islands: [{{gpu: {}, {}: {}}}]}}", base.gpu,
                                                        base.nodes > 0 ? "nodes" : "gpus",
                                                        base.nodes > 0 ? base.nodes : base.gpus),
                                 "--gpu " + base.gpu});
  if (!base.name.empty()) apply_override(doc, Override{"name", base.name, "--name " + base.name});
  if (!base.model_preset.empty())
    apply_override(doc, Override{"model", "{preset: " + base.model_preset + "}", "--model " + base.model_preset});
  const YAML::Node base_model = find_node(doc.root.node(), "model");
  if (!imported.has_model && base.model_preset.empty() && (!base_model.IsMap() || base_model.size() == 0))
    throw InputError("shardmeter import " + imported.framework + ": " + imported.source +
                     " does not describe the model: give --model PRESET or a --scenario with a model");
  ImportedScenario keys = imported;
  if (base.tokens >= 0)
    keys.set("training.tokens", fmt::format("{:.17g}", base.tokens), SourceLocation{"--tokens", 0, 0},
             "--tokens " + fmt::format("{:g}", base.tokens));

  try {
    apply_imported(doc, keys);
    for (const Override& o : base.overrides) apply_override(doc, o);
    if (keys.batch_from_world) {
      // The global batch needs the cluster's GPUs: read it once with a stand-in batch.
      const BatchFromWorld& b = *keys.batch_from_world;
      ScenarioDocument probe = doc;
      apply_override(probe, Override{"training.global_batch", std::to_string(b.micro * b.accumulation), "probe"});
      const model::Scenario s = parse_scenario(probe, catalog);
      long long gpus = 0;
      for (int i = 0; i < s.cluster.island_entries; ++i)
        gpus += static_cast<long long>(s.cluster.islands[static_cast<std::size_t>(i)].gpus) *
                s.cluster.islands[static_cast<std::size_t>(i)].count;
      if (b.divisor < 1 || gpus % b.divisor != 0)
        throw ScenarioError(b.from, b.said, "", fmt::format("needs the cluster's {} GPUs to be a multiple of {}", gpus,
                                                            b.divisor));
      const double batch = static_cast<double>(b.micro) * static_cast<double>(b.accumulation) *
                           static_cast<double>(gpus / b.divisor);
      if (batch > 1e9) throw ScenarioError(b.from, b.said, "", "gives a global batch above 10^9 sequences");
      keys.set("training.global_batch", fmt::format("{:.17g}", batch), b.from, b.said);
      apply_override(doc, Override{"training.global_batch", keys.keys.back().value,
                                   std::string(kImportMark) + std::to_string(keys.keys.size() - 1)});
    }
    // Steps x global batch x seq_len, once the batch and the model are known.
    const auto from_steps = [&](const TokensFromSteps& t, const std::string& key) {
      const model::Scenario s = parse_scenario(doc, catalog);
      const double tokens = static_cast<double>(t.steps) * static_cast<double>(s.training.global_batch) *
                            static_cast<double>(s.model.seq_len);
      keys.set(key, fmt::format("{:.17g}", tokens), t.from, t.said);
      apply_override(doc, Override{key, keys.keys.back().value,
                                   std::string(kImportMark) + std::to_string(keys.keys.size() - 1)});
    };
    if (keys.tokens_from_steps && base.tokens < 0) from_steps(*keys.tokens_from_steps, "training.tokens");
    if (keys.warmup_from_steps) from_steps(*keys.warmup_from_steps, "training.warmup_tokens");
    MergedScenario out;
    out.loaded = load_scenario(doc, catalog);
    YAML::Emitter emitter;
    emitter << doc.root.node();
    out.yaml = header(keys, base) + emitter.c_str() + "\n";
    return out;
  } catch (const ScenarioError& e) {
    throw located(e, keys);
  }
}

}  // namespace shardmeter::cli
