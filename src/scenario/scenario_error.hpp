#pragma once
// Errors of user input. The CLI prints what() and exits with status 2.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace shardmeter::cli {

struct SourceLocation {
  std::string file;   // file path, or "--set plan.tp=6" for a command-line override
  int line = 0;       // 1-based; 0 when unknown
  int column = 0;     // 1-based; 0 when unknown
  std::string str() const;  // "file:line:column", "file" when the position is unknown
};

// At most `max_bytes` of `text` (cut at a character boundary, "..." appended when cut): how a message quotes input.
std::string short_excerpt(std::string_view text, std::size_t max_bytes = 100);

class ScenarioError : public std::runtime_error {
public:
  // what() reads "<file>:<line>:<column>: <key> = <value> <problem>" (key and value as short_excerpt()s), e.g.
  // "scenarios/x.yaml:14:9: plan.tp = 6 does not divide cluster.islands.0.gpus = 1000".
  ScenarioError(SourceLocation where, std::string key, std::string value, std::string problem);
  const SourceLocation& where() const { return where_; }
  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }
  const std::string& problem() const { return problem_; }

private:
  SourceLocation where_;
  std::string key_, value_, problem_;
};

// The same error seen from the input that contained it: its location prefixed with `outer` ("lines.txt:3",
// "row 2"), e.g. "lines.txt:3: --set plan.tp=6: plan.tp = 6 does not divide ...".
ScenarioError prefixed(const ScenarioError& error, const std::string& outer);

// Bad input that has no position in a scenario file: an option value out of range, a path that is not a directory.
// what() is a complete message naming the command and the value ("shardmeter sweep: --knee 2 is not a fraction ...").
class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace shardmeter::cli
