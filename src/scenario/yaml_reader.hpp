#pragma once
// Typed reads of YAML nodes that remember where each value came from, so every error names the file, line,
// column, dotted key path and offending value. Used for scenario files, --set overrides and the catalogs.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "src/scenario/enum_names.hpp"
#include "src/scenario/range.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/word_lists.hpp"

namespace shardmeter::cli {

// Where YAML nodes came from: a file, plus the --set overrides applied to its document.
struct YamlSource {
  std::string file;
  const std::map<std::string, std::string>* overridden = nullptr;  // dotted key -> "plan.tp=4" as typed

  // The override that produced `path` (or an enclosing key), or nullptr.
  const std::string* override_for(std::string_view path) const;
  // "--set plan.tp=4" for overridden keys, else file:line:column of the node (file alone when it has no mark).
  SourceLocation at(const YAML::Node& node, std::string_view path) const;
};

// Reads and parses a YAML file. A missing file or a syntax error is a ScenarioError naming the file (and the
// line and column of the syntax error). `text` receives the file contents.
YAML::Node load_yaml_file(const std::string& path, std::string& text);
// Parses YAML text that stands for the file `file`: a syntax error is a ScenarioError at its line and column there.
YAML::Node parse_yaml(const std::string& text, const std::string& file);
// Parses YAML text that came from `where` (e.g. a --set value).
YAML::Node load_yaml_text(const std::string& text, const SourceLocation& where, const std::string& key);

// A scalar's text, or a short flow-style rendering of a map or list, for error messages.
std::string node_text(const YAML::Node& node);

// A YAML node together with its dotted key path and source.
class YamlField {
public:
  YamlField(const YamlSource& source, YAML::Node node, std::string path)
      : source_(&source), node_(std::move(node)), path_(std::move(path)) {}
  YamlField(const YamlField&) = default;
  // Rebinds to other's node. (YAML::Node::operator= would write other's value *into* the node this field
  // refers to, i.e. into the document or catalog it was read from.)
  YamlField& operator=(const YamlField& other) {
    if (this == &other) return *this;
    source_ = other.source_;
    path_ = other.path_;
    std::destroy_at(&node_);
    std::construct_at(&node_, other.node_);
    return *this;
  }

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  const YamlSource& source() const { return *source_; }
  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }
  SourceLocation where() const { return source_->at(node_, path_); }

  // An error about this value: "<where>: <path> = <value> <problem>".
  ScenarioError error(const std::string& problem) const;

  int as_int(Range range) const;
  std::int64_t as_int64(Range range) const;
  double as_double(Range range) const;
  bool as_bool() const;
  std::string as_string() const;
  template <class E>
  E as_enum() const {
    const std::string text = as_string();
    for (const NamedValue<E>& nv : enum_names<E>())
      if (nv.name == text) return nv.value;
    throw enum_error(text, enum_name_list<E>());
  }

private:
  ScenarioError enum_error(const std::string& text, const std::vector<std::string_view>& allowed) const;
  const YamlSource* source_;
  YAML::Node node_;
  std::string path_;
};

// A YAML mapping whose keys are known in advance: unknown keys and duplicates are errors (with "did you mean").
// A null node (e.g. `runtime:` with nothing under it) reads as an empty map.
class YamlMap {
public:
  YamlMap(const YamlField& field, std::span<const std::string_view> allowed);

  const YamlField& self() const { return self_; }
  const std::string& path() const { return self_.path(); }
  bool has(std::string_view key) const;
  YamlField operator[](std::string_view key) const;  // the child (undefined node when absent)
  std::string child_path(std::string_view key) const;
  // An error located at the map itself, about a key it lacks: "<where>: <path>.<key> <problem>".
  ScenarioError missing(std::string_view key, const std::string& problem) const;

  // Read a key when present; return whether it was.
  bool read(std::string_view key, std::string& out) const;

private:
  YamlField self_;
};

}  // namespace shardmeter::cli
