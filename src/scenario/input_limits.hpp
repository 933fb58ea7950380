#pragma once
// Limits on what a YAML input (scenario, catalog, preset, price file, --set value) may be, checked before and
// after yaml-cpp parses it so that a hostile file is refused quickly with a located message instead of taking
// minutes, gigabytes or the stack: size, UTF-8 validity, control characters, line endings, nesting depth, list
// length and string length.
#include <cstddef>
#include <string>

#include <yaml-cpp/yaml.h>

namespace shardmeter::cli {

inline constexpr std::size_t kMaxInputBytes = 1 << 20;    // 1 MiB; the largest shipped file is a few kB
inline constexpr std::size_t kMaxScalarBytes = 4096;      // one value: a name, a description, a citation
inline constexpr std::size_t kMaxListLength = 4096;       // entries of one list (search axes values included)
inline constexpr std::size_t kMaxMapSize = 4096;          // keys of one map
inline constexpr int kMaxNestingDepth = 32;               // scenarios nest 5 deep

// Throws ScenarioError at `file`[:line:column] when `text` is larger than kMaxInputBytes, is not valid UTF-8, holds
// a control character other than tab, LF and CR, or ends lines with a lone CR.
void check_input_text(const std::string& text, const std::string& file);

// Throws ScenarioError at the offending node when the parsed tree nests deeper than kMaxNestingDepth or holds a
// list, map or scalar above its limit.
void check_input_tree(const YAML::Node& root, const std::string& file);

}  // namespace shardmeter::cli
