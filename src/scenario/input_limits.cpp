#include "src/scenario/input_limits.hpp"

#include <fmt/format.h>

#include "model/spec/utf8.hpp"
#include "src/scenario/scenario_error.hpp"

namespace shardmeter::cli {

void check_input_text(const std::string& text, const std::string& file) {
  if (text.size() > kMaxInputBytes)
    throw ScenarioError(SourceLocation{file, 0, 0}, "", "",
                        fmt::format("is too large: {} bytes (at most {} are read)", text.size(), kMaxInputBytes));
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const SourceLocation here{file, line, column};
    const std::size_t n = model::utf8_sequence_length(text, i);
    if (n == 0)
      throw ScenarioError(here, "", "", fmt::format("is not valid UTF-8 text (byte 0x{:02x} here)", c));
    if (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))
      throw ScenarioError(here, "", "", "ends a line with a lone CR (old Mac line endings); save it with LF or CRLF");
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)
      throw ScenarioError(here, "", "", fmt::format("holds the control character U+{:04X}; remove it", c));
    if (c == '\n') {
      ++line;
      column = 1;
    } else if (c != '\r') {
      ++column;
    }
    i += n;
  }
}

namespace {

constexpr std::size_t kMaxNodes = 200'000;  // aliases can make a small file a huge tree ("billion laughs")

void check_node(const YAML::Node& node, const std::string& file, int depth, std::size_t& visited) {
  const auto where = [&] {
    const YAML::Mark m = node.Mark();
    return m.is_null() ? SourceLocation{file, 0, 0} : SourceLocation{file, m.line + 1, m.column + 1};
  };
  if (++visited > kMaxNodes)
    throw ScenarioError(where(), "", "", fmt::format("holds more than {} values (counting what aliases repeat)", kMaxNodes));
  if (depth > kMaxNestingDepth)
    throw ScenarioError(where(), "", "", fmt::format("nests deeper than {} levels", kMaxNestingDepth));
  if (node.IsScalar() && node.Scalar().size() > kMaxScalarBytes)
    throw ScenarioError(where(), "", "",
                        fmt::format("holds a value of {} bytes (at most {})", node.Scalar().size(), kMaxScalarBytes));
  if (node.IsSequence()) {
    if (node.size() > kMaxListLength)
      throw ScenarioError(where(), "", "", fmt::format("holds a list of {} entries (at most {})", node.size(), kMaxListLength));
    for (const YAML::Node& item : node) check_node(item, file, depth + 1, visited);
  } else if (node.IsMap()) {
    if (node.size() > kMaxMapSize)
      throw ScenarioError(where(), "", "", fmt::format("holds a map of {} keys (at most {})", node.size(), kMaxMapSize));
    for (const auto& entry : node) {
      check_node(entry.first, file, depth + 1, visited);
      check_node(entry.second, file, depth + 1, visited);
    }
  }
}

}  // namespace

void check_input_tree(const YAML::Node& root, const std::string& file) {
  std::size_t visited = 0;
  check_node(root, file, 0, visited);
}

}  // namespace shardmeter::cli
