#pragma once
// The words of a launch file (a bash script, an exported `MEGATRON_ARGS=( ... )` array, or an argument list), each
// with its line and column, shell-like: blanks separate, quotes group, a backslash at the end of a line continues
// it, `#` at the start of a word comments to the end of the line. Nothing is expanded.
#include <string>
#include <vector>

#include "src/scenario/scenario_error.hpp"

namespace shardmeter::cli {

struct LaunchWord {
  std::string text;
  SourceLocation at;
  std::string comment;  // a comment that ends the line after this word's line ("vocabulary: 128256 tokens"), if any
};

struct LaunchText {
  std::vector<LaunchWord> words;
  std::vector<std::pair<SourceLocation, std::string>> comments;  // every comment, without its '#'
};

// ScenarioError at an unterminated quote.
LaunchText split_launch_text(const std::string& text, const std::string& file);

}  // namespace shardmeter::cli
