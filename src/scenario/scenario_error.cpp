#include "src/scenario/scenario_error.hpp"

#include "model/spec/utf8.hpp"

namespace shardmeter::cli {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column > 0 ? column : 1);
}

std::string short_excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes > 3 ? max_bytes - 3 : 0;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return std::string(text.substr(0, cut)) + "...";
}

namespace {

// "<where>: <key> = <value> <problem>"; parts that are empty are left out ("<where>: <problem>" for a missing file).
std::string compose(const SourceLocation& where, const std::string& key, const std::string& value,
                    const std::string& problem) {
  std::string text = where.str();
  if (!text.empty()) text += ": ";
  // Keys and values come from the input: quote at most a short excerpt of them (a whole foreign file is not echoed).
  std::string subject = short_excerpt(key);
  if (!key.empty() && !value.empty()) subject += " = " + short_excerpt(value);
  if (key.empty()) subject = short_excerpt(value);
  if (!subject.empty()) text += subject + (problem.empty() ? "" : " ");
  text += problem;
  // One line, printable: control characters (a newline in a value, a stray byte in a binary file) and bytes that
  // are not UTF-8 become '?'.
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = model::utf8_sequence_length(text, i);
    if (n == 0 || c < 0x20 || c == 0x7f) {
      text[i] = '?';
      ++i;
    } else {
      i += n;
    }
  }
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
