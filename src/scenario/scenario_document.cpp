// Reading a scenario file into a YAML document and applying --set overrides to it; locating keys in it.
#include "src/scenario/scenario_document.hpp"

#include <cctype>

#include <yaml-cpp/yaml.h>

#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::vector<std::string> split_path(const std::string& dotted) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto dot = dotted.find('.', start);
    parts.push_back(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

// The deepest key a scenario has is cluster.islands.N.efficiency.gemm (5 parts); a longer path names nothing, and
// unchecked it made apply_override record every prefix (quadratic memory: 45,000 parts took 4 GB).
constexpr std::size_t kMaxKeyParts = 8;
constexpr std::size_t kMaxKeyLength = 200;


void check_key_path(const SourceLocation& where, const std::string& key, const std::string& value,
                    const std::vector<std::string>& parts) {
  if (key.size() > kMaxKeyLength)
    throw ScenarioError(where, key.substr(0, 40) + "...", "",
                        "is not a scenario key: longer than " + std::to_string(kMaxKeyLength) + " characters");
  if (parts.size() > kMaxKeyParts)
    throw ScenarioError(where, key, value,
                        "is not a scenario key: more than " + std::to_string(kMaxKeyParts) + " dotted parts");
  for (const std::string& part : parts)
    if (part.empty() || part.find_first_of(" \t") != std::string::npos)
      throw ScenarioError(where, key, value, "is not a dotted key path (e.g. cluster.islands.0.gpus)");
}

bool is_index(const std::string& part) {
  if (part.empty() || part.size() > 6) return false;
  for (char c : part)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

void check_dotted_key(const SourceLocation& where, const std::string& key, const std::string& value) {
  if (key.size() > kMaxKeyLength) check_key_path(where, key, value, {});  // throws before splitting a huge key
  check_key_path(where, key, value, split_path(key));
}

Override parse_override(const std::string& text) {
  const SourceLocation where{"--set " + short_excerpt(text), 0, 0};
  const auto eq = text.find('=');
  if (eq == std::string::npos || trimmed(text.substr(0, eq)).empty())
    throw ScenarioError(where, "", text, "is not KEY=VALUE (e.g. --set plan.tp=4)");
  Override o;
  o.key = trimmed(text.substr(0, eq));
  o.value = trimmed(text.substr(eq + 1));
  o.text = text;
  check_dotted_key(where, o.key, o.value);
  return o;
}

void apply_override(ScenarioDocument& doc, const Override& o) {
  const SourceLocation where{"--set " + short_excerpt(o.text), 0, 0};
  const std::vector<std::string> parts = split_path(o.key);
  check_key_path(where, o.key, o.value, parts);
  const YAML::Node value = load_yaml_text(o.value, where, o.key);

  YAML::Node current = doc.root.node();  // a handle; rebound with reset(), never assigned (that would overwrite)
  std::string path;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const std::string parent = path;
    path += (path.empty() ? "" : ".") + part;
    const bool last = i + 1 == parts.size();
    if (current.IsSequence()) {
      const std::size_t size = current.size();
      if (!is_index(part) || std::stoul(part) > size)
        throw ScenarioError(where, o.key, o.value,
                            "cannot be set: " + parent + " has " + std::to_string(size) +
                                (size == 1 ? " entry" : " entries") + ", so the index must be 0 to " +
                                std::to_string(size) + " (" + std::to_string(size) + " appends an entry)");
      const std::size_t index = std::stoul(part);
      if (index == size) {
        current.push_back(last ? value : YAML::Node(YAML::NodeType::Map));
        doc.overridden[path] = o.text;
      } else if (last) {
        current[index] = value;
      }
      if (!last) current.reset(current[index]);
    } else if (current.IsMap() || current.IsNull()) {
      if (last) {
        current[part] = value;
      } else {
        if (!current[part].IsDefined() || current[part].IsNull()) {
          current[part] = YAML::Node(YAML::NodeType::Map);
          doc.overridden[path] = o.text;
        }
        current.reset(current[part]);
      }
    } else {
      throw ScenarioError(where, o.key, o.value,
                          "cannot be set: " + parent + " = " + node_text(current) + " is a single value, not a map");
    }
  }
  doc.overridden[o.key] = o.text;
  doc.applied.push_back(o);
}

ScenarioDocument::ScenarioDocument(const ScenarioDocument& other)
    : path(other.path), text(other.text), overridden(), applied() {
  // Documents built in code (no text) are cloned; yaml-cpp's Clone drops positions, which only code-built
  // documents lack anyway.
  root = YamlTree(other.text.empty() ? YAML::Clone(other.root.node()) : YAML::Load(text));
  for (const Override& o : other.applied) apply_override(*this, o);
}

ScenarioDocument& ScenarioDocument::operator=(const ScenarioDocument& other) {
  if (this != &other) *this = ScenarioDocument(other);
  return *this;
}

ScenarioDocument::ScenarioDocument(ScenarioDocument&& other) noexcept
    : path(std::move(other.path)),
      text(std::move(other.text)),
      root(std::move(other.root)),
      overridden(std::move(other.overridden)),
      applied(std::move(other.applied)) {}

ScenarioDocument& ScenarioDocument::operator=(ScenarioDocument&& other) noexcept {
  path = std::move(other.path);
  text = std::move(other.text);
  root = std::move(other.root);  // YamlTree rebinds; it never writes through as YAML::Node's assignment does
  overridden = std::move(other.overridden);
  applied = std::move(other.applied);
  return *this;
}

namespace {

ScenarioDocument make_document(const std::string& path, std::string text, const YAML::Node& root,
                               const std::vector<Override>& overrides) {
  if (!root.IsMap()) {
    const YamlSource source{path, nullptr};
    throw ScenarioError(root.IsNull() ? SourceLocation{path, 1, 1} : source.at(root, ""), "", "",
                        "is not a scenario: expected a map of keys (name, model, training, cluster, plan)");
  }
  ScenarioDocument doc;
  doc.path = path;
  doc.text = std::move(text);
  doc.root = YamlTree(root);
  for (const Override& o : overrides) apply_override(doc, o);
  return doc;
}

}  // namespace

ScenarioDocument read_scenario_document(const std::string& path, const std::vector<Override>& overrides) {
  std::string text;
  const YAML::Node root = load_yaml_file(path, text);
  return make_document(path, std::move(text), root, overrides);
}

ScenarioDocument scenario_document_from_text(const std::string& label, const std::string& text,
                                             const std::vector<Override>& overrides) {
  return make_document(label, text, parse_yaml(text, label), overrides);
}

std::optional<std::string> scalar_at(const ScenarioDocument& doc, const std::string& dotted_key) {
  const YAML::Node node = find_node(doc.root.node(), dotted_key);
  if (!node.IsDefined() || !node.IsScalar()) return std::nullopt;
  return node.Scalar();
}

std::string effective_text(const ScenarioDocument& doc) {
  if (doc.applied.empty()) return doc.text;
  std::string header = "# " + doc.path + " with";
  for (const Override& o : doc.applied) header += " --set " + o.text;
  YAML::Emitter out;
  out << doc.root.node();
  return header + "\n" + out.c_str() + "\n";
}

YAML::Node find_node(const YAML::Node& root, const std::string& dotted_key) {
  YAML::Node current = root;
  for (const std::string& part : split_path(dotted_key)) {
    const YAML::Node& node = current;  // const access never inserts
    if (node.IsSequence() && !(is_index(part) && std::stoul(part) < node.size()))
      return YAML::Node(YAML::NodeType::Undefined);
    if (!node.IsSequence() && !node.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    // Copy-construct (never assign: assigning yaml-cpp handles writes through them, and throws for absent keys).
    const YAML::Node next = node.IsSequence() ? node[std::stoul(part)] : node[part];
    if (!next.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
    current.reset(next);
  }
  return current;
}

SourceLocation locate(const ScenarioDocument& doc, const std::string& dotted_key) {
  const YamlSource source{doc.path, &doc.overridden};
  // The key itself, or the nearest enclosing key that the document has.
  std::string key = dotted_key;
  while (true) {
    const YAML::Node node = find_node(doc.root.node(), key);
    if (node.IsDefined() || source.override_for(key) != nullptr) return source.at(node, key);
    const auto dot = key.rfind('.');
    if (dot == std::string::npos) return source.at(doc.root.node(), "");
    key.resize(dot);
  }
}

}  // namespace shardmeter::cli
