#pragma once
// A JSON file read strictly (nlohmann-json) with the position of every object key, so errors about a value name
// the file, line and column it was written at. nlohmann 3.11 reports a parse error as a byte offset and keeps no
// positions: the offset becomes line:column here, and a second pass over the (already valid) text records where
// each key starts. Used by model.hf_config (src/scenario/hf_config.hpp) and `shardmeter import deepspeed`.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "src/scenario/scenario_error.hpp"

namespace shardmeter::cli {

class LocatedJson {
public:
  // Reads and parses `path`: a missing, oversized or non-UTF-8 file, a syntax error or a key repeated in one object
  // is a ScenarioError at its line and column.
  static LocatedJson read_file(const std::string& path);
  // Parses `text` standing for the file `file`.
  static LocatedJson parse(const std::string& text, const std::string& file);

  const nlohmann::json& root() const { return root_; }
  const std::string& file() const { return file_; }
  // Where the key `path` ("rope_scaling.factor"; list entries as their index, "layer_types.3") is written; the file
  // alone when the path is not a key of the text.
  SourceLocation at(const std::string& path) const;
  // An error about the value at `path`: "<file>:<line>:<column>: <path> = <value> <problem>".
  ScenarioError error(const std::string& path, const std::string& problem) const;
  // The value at `path` as it would be written (strings unquoted), "" when absent.
  std::string text(const std::string& path) const;
  const nlohmann::json* find(const std::string& path) const;

private:
  std::string file_;
  nlohmann::json root_;
  std::map<std::string, SourceLocation, std::less<>> keys_;
};

// 1-based line and column of byte `offset` in `text` (columns count bytes).
SourceLocation text_position(const std::string& text, std::size_t offset, const std::string& file);

}  // namespace shardmeter::cli
