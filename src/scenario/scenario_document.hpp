#pragma once
// A scenario file as a YAML document with its `--set` overrides applied, and where each key of it came from.
// Reading it into a model::Scenario is src/scenario/scenario_parse.hpp.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/scenario/scenario_error.hpp"
#include "src/scenario/yaml_tree.hpp"

namespace shardmeter::cli {

// One `--set KEY=VALUE` from the command line.
struct Override {
  std::string key;    // dotted path, e.g. "plan.tp" or "cluster.islands.0.gpus"
  std::string value;  // YAML scalar or flow text, e.g. "4", "[1, 2]", "{gpu: h100-sxm, gpus: 64}"
  std::string text;   // as typed: "plan.tp=4" (used as the error location)
};
// Throws ScenarioError (at `where`) unless `key` is a dotted key path a scenario can have: at most 8 parts and 200
// characters, no empty part, no blanks.
void check_dotted_key(const SourceLocation& where, const std::string& key, const std::string& value);
// Parses "KEY=VALUE"; throws ScenarioError for a missing '=' or a key check_dotted_key refuses.
Override parse_override(const std::string& text);

// The YAML document of a scenario file, with overrides applied.
struct ScenarioDocument {
  std::string path;                  // as given by the user
  std::string text;                  // file contents (provenance for result files)
  YamlTree root;                     // the document (include <yaml-cpp/yaml.h> to read root.node())
  std::map<std::string, std::string> overridden;  // dotted key -> override text, for error locations
  std::vector<Override> applied;     // the overrides applied to `text`, in order

  ScenarioDocument() = default;
  // Copies are deep and independent: yaml-cpp nodes are shared handles (assigning one writes through it), so a
  // copy re-parses `text` and replays `applied`, keeping every line/column position. Copy a document before
  // applying overrides to it (e.g. per search axis value) and the original stays untouched. A moved-from
  // document may only be assigned to or destroyed.
  ScenarioDocument(const ScenarioDocument& other);
  ScenarioDocument& operator=(const ScenarioDocument& other);
  ScenarioDocument(ScenarioDocument&& other) noexcept;
  ScenarioDocument& operator=(ScenarioDocument&& other) noexcept;
  ~ScenarioDocument() = default;
};

// Reads a scenario file; ScenarioError when it cannot be read, is not YAML, or is not a map of keys.
ScenarioDocument read_scenario_document(const std::string& path, const std::vector<Override>& overrides = {});
// The same for scenario text from elsewhere (a result file's provenance, the Python module, a test); `label` stands
// for the file name in error locations.
ScenarioDocument scenario_document_from_text(const std::string& label, const std::string& text,
                                             const std::vector<Override>& overrides = {});
// Sets one dotted key in a document (creating maps as needed); used by --set and by search axes.
void apply_override(ScenarioDocument& doc, const Override& override_);

// Where a dotted key sits: its file position, or the --set that produced it; for a key the document lacks,
// the position of the nearest enclosing key it has.
SourceLocation locate(const ScenarioDocument& doc, const std::string& dotted_key);
// The text of the single value at a dotted key ("model.preset"), or nothing when the document has no single value
// there.
std::optional<std::string> scalar_at(const ScenarioDocument& doc, const std::string& dotted_key);
// The scenario as it was read: the file's text, or (after --set) the document re-emitted with the overrides
// applied, under a comment naming them. Reading it back gives the same scenario.
std::string effective_text(const ScenarioDocument& doc);
// The node at a dotted key ("cluster.islands.0.gpus"), or an undefined node. Never modifies the document.
// (Callers include <yaml-cpp/yaml.h>.)
YAML::Node find_node(const YAML::Node& root, const std::string& dotted_key);

}  // namespace shardmeter::cli
