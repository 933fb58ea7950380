#pragma once
// The TOML torchtitan job files use, read strictly: `[table]` headers (dotted names allowed), `key = value` lines
// with basic strings ("..." with \" \\ \n \t escapes), literal strings ('...'), integers, floats, booleans, and
// one-line arrays of those; `#` comments; blank lines. Anything else (multi-line strings or arrays, inline tables,
// dates, dotted keys) is an error at its line naming the construct, never a guess. Chosen over toml++ (Debian's
// libtomlplusplus-dev) to keep the dependency list as it is: the import reads a dozen keys of a format it also writes
// (docs/import.md).
#include <map>
#include <string>
#include <vector>

#include "src/scenario/scenario_error.hpp"

namespace shardmeter::cli {

struct TomlValue {
  enum class Kind { string, integer, number, boolean, array } kind = Kind::string;
  std::string text;                 // strings unescaped; numbers and booleans as written
  std::vector<TomlValue> items;     // arrays
  SourceLocation at;                // the key's position
  std::string line;                 // the line as written (for messages)
};

// "table.key" -> value, e.g. "parallelism.tensor_parallel_degree". ScenarioError at a repeated key or table, or at
// a construct outside the subset.
std::map<std::string, TomlValue> read_toml_subset(const std::string& text, const std::string& file);

}  // namespace shardmeter::cli
