#include "src/scenario/scenario_error.hpp"

namespace shardmeter::cli {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column > 0 ? column : 1);
}

namespace {

// "<where>: <key> = <value> <problem>"; parts that are empty are left out ("<where>: <problem>" for a missing file).
std::string compose(const SourceLocation& where, const std::string& key, const std::string& value,
                    const std::string& problem) {
  std::string text = where.str();
  if (!text.empty()) text += ": ";
  std::string subject = key;
  if (!key.empty() && !value.empty()) subject += " = " + value;
  if (key.empty()) subject = value;
  if (!subject.empty()) text += subject + (problem.empty() ? "" : " ");
  text += problem;
  // One line, printable: control characters (a newline in a value, a stray byte in a binary file) become '?'.
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

}  // namespace

ScenarioError::ScenarioError(SourceLocation where, std::string key, std::string value, std::string problem)
    : std::runtime_error(compose(where, key, value, problem)),
      where_(std::move(where)),
      key_(std::move(key)),
      value_(std::move(value)),
      problem_(std::move(problem)) {}

ScenarioError prefixed(const ScenarioError& error, const std::string& outer) {
  SourceLocation where = error.where();
  where.file = outer + ": " + where.file;
  return ScenarioError(where, error.key(), error.value(), error.problem());
}

}  // namespace shardmeter::cli
