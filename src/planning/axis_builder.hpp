#pragma once
// Search and sweep axes from scenario text: a dotted key and its values (a YAML list, or a range such as
// "64:8192:x2" geometric or "8:8192:+8" arithmetic). Each value becomes a byte patch on the base scenario:
// the document is copied, the key set to the value exactly as `--set` would, parsed, and compared with the base.
// The search engine therefore knows no scenario field (search/README.md).
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/spec/scenario.hpp"
#include "search/space.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace YAML {
class Node;
}  // namespace YAML

namespace shardmeter::cli {

struct AxisSpec {
  std::string key;                  // dotted path, e.g. "plan.tp" or "cluster.islands.0.gpu"
  std::vector<std::string> values;  // YAML text of each value, in order
  SourceLocation where;             // where the axis was written (file position or command line)
};

// Expands "A:B:xK" (A, A*K, ... <= B), "A:B:+K" (A, A+K, ... <= B) and "A:B" (step 1). Throws ScenarioError at
// `where` naming `key` for a malformed or empty range, or one of more than `limit` values.
std::vector<std::string> expand_range(const std::string& text, const std::string& key, const SourceLocation& where,
                                      std::size_t limit = 100000);

// An axis from a YAML node: a sequence (each item, scalars or flow maps), or a scalar range / single value.
AxisSpec axis_from_yaml(const std::string& key, const YAML::Node& values, const SourceLocation& where);
// An axis from the command line: "KEY=VALUES" with VALUES a YAML list ("[1, 2, 4]") or a range ("64:8192:x2").
AxisSpec axis_from_text(const std::string& text);

// Builds the search axis: one patch per value against `base` (parsed from `doc`). A value that does not parse
// (wrong type, unknown GPU) throws ScenarioError naming the axis and the value.
// Building takes a few milliseconds per value: when `stop` becomes true (Ctrl-C) it throws Interrupted.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};
search::Axis build_axis(const ScenarioDocument& doc, const model::Scenario& base, const Catalog& catalog,
                        const AxisSpec& spec, const std::atomic<bool>* stop = nullptr);

}  // namespace shardmeter::cli
