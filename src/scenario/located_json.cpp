#include "src/scenario/located_json.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "src/scenario/input_limits.hpp"

namespace shardmeter::cli {

SourceLocation text_position(const std::string& text, std::size_t offset, const std::string& file) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return SourceLocation{file, line, column};
}

namespace {

// A JSON string starting at text[i] == '"': returns its unescaped contents (escapes other than \" and \\ kept as
// written: keys of the files read here are plain) and moves i past the closing quote.
std::string read_string(const std::string& text, std::size_t& i) {
  std::string out;
  for (++i; i < text.size() && text[i] != '"'; ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      ++i;
      if (text[i] != '"' && text[i] != '\\') out += '\\';
    }
    out += text[i];
  }
  ++i;
  return out;
}

// Records the position of every object key of valid JSON `text`, by its dotted path; throws at a repeated key.
void index_keys(const std::string& text, const std::string& file, std::map<std::string, SourceLocation, std::less<>>& keys) {
  struct Level {
    bool object;
    std::string prefix;  // path of this container plus "." (empty at the top)
    int index = 0;       // arrays: the current entry
    std::string key;     // objects: the last key read
    bool placed = false; // arrays: the current entry's position is recorded
  };
  std::vector<Level> stack;
  const auto child_prefix = [&]() -> std::string {
    if (stack.empty()) return "";
    const Level& l = stack.back();
    return l.prefix + (l.object ? l.key : std::to_string(l.index)) + ".";
  };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    // An array entry starts here: record it as "<array>.<index>".
    if (!stack.empty() && !stack.back().object && !stack.back().placed && c != ' ' && c != '\t' && c != '\n' &&
        c != '\r' && c != ',' && c != ']') {
      stack.back().placed = true;
      keys.emplace(stack.back().prefix + std::to_string(stack.back().index), text_position(text, i, file));
    }
    if (c == '{' || c == '[') {
      const std::string prefix = child_prefix();
      stack.push_back(Level{c == '{', prefix, 0, "", false});
      ++i;
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
      ++i;
    } else if (c == ',') {
      if (!stack.empty() && !stack.back().object) {
        ++stack.back().index;
        stack.back().placed = false;
      }
      ++i;
    } else if (c == '"') {
      const std::size_t start = i;
      const std::string s = read_string(text, i);
      std::size_t j = i;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
      if (!stack.empty() && stack.back().object && j < text.size() && text[j] == ':') {
        stack.back().key = s;
        const std::string path = stack.back().prefix + s;
        const SourceLocation where = text_position(text, start, file);
        if (!keys.emplace(path, where).second)
          throw ScenarioError(where, path, "", "is given twice in one object (first at line " +
                                                   std::to_string(keys.at(path).line) + ")");
        i = j + 1;
      }
    } else {
      ++i;
    }
  }
}

}  // namespace

LocatedJson LocatedJson::read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ScenarioError(SourceLocation{path, 0, 0}, "", "", "cannot be read: no such file");
  if (std::filesystem::file_size(path, ec) > kMaxInputBytes)
    throw ScenarioError(SourceLocation{path, 0, 0}, "", "", "is too large (at most " + std::to_string(kMaxInputBytes) +
                                                                " bytes are read)");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (!in) throw ScenarioError(SourceLocation{path, 0, 0}, "", "", "cannot be read");
  return parse(buffer.str(), path);
}

LocatedJson LocatedJson::parse(const std::string& text, const std::string& file) {
  check_input_text(text, file);
  LocatedJson out;
  out.file_ = file;
  try {
    out.root_ = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based, the byte at which the parser stopped.
    std::string what = e.what();
    if (const auto at = what.find("syntax error while parsing"); at != std::string::npos) what = what.substr(at);
    throw ScenarioError(text_position(text, e.byte > 0 ? e.byte - 1 : 0, file), "", "", "is not valid JSON: " + what);
  }
  index_keys(text, file, out.keys_);
  return out;
}

SourceLocation LocatedJson::at(const std::string& path) const {
  const auto it = keys_.find(path);
  return it == keys_.end() ? SourceLocation{file_, 0, 0} : it->second;
}

const nlohmann::json* LocatedJson::find(const std::string& path) const {
  const nlohmann::json* node = &root_;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (node->is_object()) {
      const auto it = node->find(part);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array() && !part.empty() && part.find_first_not_of("0123456789") == std::string::npos) {
      const std::size_t index = std::stoul(part);
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

std::string LocatedJson::text(const std::string& path) const {
  const nlohmann::json* node = find(path);
  if (node == nullptr) return "";
  return node->is_string() ? node->get<std::string>() : node->dump();
}

ScenarioError LocatedJson::error(const std::string& path, const std::string& problem) const {
  return ScenarioError(at(path), path, text(path), problem);
}

}  // namespace shardmeter::cli
