#include "src/scenario/yaml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <system_error>
#include <vector>

#include <yaml-cpp/eventhandler.h>

#include "src/scenario/input_limits.hpp"

namespace shardmeter::cli {

// ---- locations and text --------------------------------------------------------------------------------

const std::string* YamlSource::override_for(std::string_view path) const {
  if (overridden == nullptr) return nullptr;
  // The longest overridden key that is `path` or encloses it: the --set that wrote this value last.
  const std::string* best = nullptr;
  std::size_t best_length = 0;
  for (const auto& [key, text] : *overridden) {
    const bool same = key == path;
    const bool encloses = path.size() > key.size() && path.substr(0, key.size()) == key && path[key.size()] == '.';
    if ((same || encloses) && (best == nullptr || key.size() > best_length)) {
      best = &text;
      best_length = key.size();
    }
  }
  return best;
}

SourceLocation YamlSource::at(const YAML::Node& node, std::string_view path) const {
  if (const std::string* text = override_for(path)) return SourceLocation{"--set " + *text, 0, 0};
  if (!node.IsDefined()) return SourceLocation{file, 0, 0};
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, mark.line + 1, mark.column + 1};  // yaml-cpp marks are 0-based
}

YAML::Node load_yaml_file(const std::string& path, std::string& text) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw ScenarioError(SourceLocation{path, 0, 0}, "", "", "cannot be read: no such file");
  if (!std::filesystem::is_regular_file(status))
    throw ScenarioError(SourceLocation{path, 0, 0}, "", "", "cannot be read: not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxInputBytes)  // refuse before reading it (check_input_text says the same for other texts)
    throw ScenarioError(SourceLocation{path, 0, 0}, "", "",
                        "is too large: " + std::to_string(size) + " bytes (at most " + std::to_string(kMaxInputBytes) +
                            " are read)");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (!in) throw ScenarioError(SourceLocation{path, 0, 0}, "", "", "cannot be read");
  text = buffer.str();
  return parse_yaml(text, path);
}

namespace {

// Counts the documents of a YAML text without building them, for single_document().
class DocumentCounter : public YAML::EventHandler {
public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++starts == 2) second = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  int starts = 0;
  YAML::Mark second = YAML::Mark::null_mark();
};

// The first document of `text` (a null node when it has none); `second` makes the error for anything after it
// (a second document was silently ignored). Not YAML::LoadAll: it loops forever on a stray ',' (fuzz_scenario,
// tests/fuzz/crashers/fuzz_scenario/leading_comma.yaml); the parser is asked for at most two documents.
YAML::Node single_document(const std::string& text, const std::function<ScenarioError(const YAML::Mark&)>& second) {
  const YAML::Node first = YAML::Load(text);
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentCounter counter;
  int documents = 0;
  while (documents < 2 && parser.HandleNextDocument(counter)) ++documents;
  if (documents > 1) throw second(counter.second);
  return first;
}

}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  check_input_text(text, file);
  const auto at = [&](const YAML::Mark& m) {
    return m.is_null() ? SourceLocation{file, 0, 0} : SourceLocation{file, m.line + 1, m.column + 1};
  };
  const YAML::Node root = [&] {
    try {
      return single_document(text, [&](const YAML::Mark& m) {
        return ScenarioError(at(m), "", "", "holds more than one YAML document (a second one, or stray text after the first)");
      });
    } catch (const YAML::ParserException& e) {
      throw ScenarioError(at(e.mark), "", "", "YAML syntax error: " + e.msg);
    }
  }();
  check_input_tree(root, file);
  return root;
}

YAML::Node load_yaml_text(const std::string& text, const SourceLocation& where, const std::string& key) {
  try {
    check_input_text(text, where.file);
    const YAML::Node value = single_document(text, [&](const YAML::Mark&) {
      return ScenarioError(where, key, text, "holds more than one YAML document (junk after the value?)");
    });
    check_input_tree(value, where.file);
    return value;
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(where, key, text, "is not valid YAML: " + e.msg);
  } catch (const ScenarioError& e) {
    throw ScenarioError(where, key, text, e.problem());
  }
}

std::string node_text(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "";
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  std::string text = out.c_str();
  constexpr std::size_t kMax = 60;
  if (text.size() > kMax) text = text.substr(0, kMax - 3) + "...";
  return text;
}

// ---- typed reads ----------------------------------------------------------------------------------------

ScenarioError YamlField::error(const std::string& problem) const {
  return ScenarioError(where(), path_, node_text(node_), problem);
}

namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// A finite number written in decimal or scientific notation ("300e9", "0.85"); false otherwise.
bool parse_number(const std::string& text, double& out) {
  const std::string t = trimmed(text);
  if (t.empty()) return false;
  for (char c : t)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(v)) return false;
  out = v;
  return true;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

double YamlField::as_double(Range range) const {
  if (is_null()) throw error("is empty; expected a number");
  if (!node_.IsScalar()) throw error("is not a number");
  double v = 0;
  if (!parse_number(node_.Scalar(), v)) throw error("is not a number");
  if (!range.contains(v)) throw error("is out of range: must be " + range.text());
  return v;
}

std::int64_t YamlField::as_int64(Range range) const {
  if (is_null()) throw error("is empty; expected an integer");
  if (!node_.IsScalar()) throw error("is not an integer");
  double v = 0;
  // Integers may be written in scientific notation when they are whole (e.g. 1e3).
  if (!parse_number(node_.Scalar(), v) || v != std::floor(v)) throw error("is not an integer");
  range.min = std::max(range.min, -9.0e15);  // exactly representable in a double and an int64
  range.max = std::min(range.max, 9.0e15);
  if (!range.contains(v)) throw error("is out of range: must be " + range.text());
  return static_cast<std::int64_t>(v);
}

int YamlField::as_int(Range range) const {
  range.min = std::max(range.min, static_cast<double>(std::numeric_limits<int>::min()));
  range.max = std::min(range.max, static_cast<double>(std::numeric_limits<int>::max()));
  return static_cast<int>(as_int64(range));
}

bool YamlField::as_bool() const {
  if (is_null()) throw error("is empty; expected true or false");
  if (node_.IsScalar()) {
    const std::string t = lower(trimmed(node_.Scalar()));
    if (t == "true" || t == "yes" || t == "on") return true;
    if (t == "false" || t == "no" || t == "off") return false;
  }
  throw error("is not a boolean (true or false)");
}

std::string YamlField::as_string() const {
  if (is_null()) throw error("is empty; expected a name");
  if (!node_.IsScalar()) throw error("is not a single value");
  return node_.Scalar();
}

ScenarioError YamlField::enum_error(const std::string& text, const std::vector<std::string_view>& allowed) const {
  const std::string suggestion = closest_match(text, allowed);
  std::string problem = "is not one of " + join(allowed, " | ");
  if (!suggestion.empty()) problem += " (did you mean " + suggestion + "?)";
  return error(problem);
}

// ---- maps -----------------------------------------------------------------------------------------------

YamlMap::YamlMap(const YamlField& field, std::span<const std::string_view> allowed) : self_(field) {
  if (field.is_null()) return;
  if (!field.node().IsMap()) {
    throw field.error("is not a map of keys (expected keys like " +
                      join(allowed.subspan(0, std::min<std::size_t>(allowed.size(), 4))) + ")");
  }
  std::set<std::string> seen;
  for (const auto& entry : field.node()) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : node_text(entry.first);
    const std::string key_path = child_path(key);
    const SourceLocation key_at = field.source().at(entry.first, key_path);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const std::string suggestion = closest_match(key, allowed);
      std::string problem = "is not a known key";
      if (!suggestion.empty())
        problem += " (did you mean " + child_path(suggestion) + "?)";
      else
        problem += (field.path().empty() ? std::string(" at the top level") : " of " + field.path()) +
                   "; known keys: " + join(allowed);
      throw ScenarioError(key_at, key_path, node_text(entry.second), problem);
    }
    if (!seen.insert(key).second) throw ScenarioError(key_at, key_path, node_text(entry.second), "is given twice");
  }
}

bool YamlMap::has(std::string_view key) const {
  if (self_.is_null()) return false;
  const YAML::Node& node = self_.node();
  return node[std::string(key)].IsDefined();
}

std::string YamlMap::child_path(std::string_view key) const {
  return self_.path().empty() ? std::string(key) : self_.path() + "." + std::string(key);
}

YamlField YamlMap::operator[](std::string_view key) const {
  if (self_.is_null()) return YamlField(self_.source(), YAML::Node(YAML::NodeType::Undefined), child_path(key));
  const YAML::Node& node = self_.node();
  return YamlField(self_.source(), node[std::string(key)], child_path(key));
}

ScenarioError YamlMap::missing(std::string_view key, const std::string& problem) const {
  return ScenarioError(self_.where(), child_path(key), "", problem);
}

bool YamlMap::read(std::string_view key, std::string& out) const {
  if (!has(key)) return false;
  out = (*this)[key].as_string();
  return true;
}

}  // namespace shardmeter::cli
