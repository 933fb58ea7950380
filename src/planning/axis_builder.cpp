#include "src/planning/axis_builder.hpp"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "search/patch.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace {

bool parse_int(const std::string& text, std::int64_t& out) {
  try {
    std::size_t used = 0;
    out = std::stoll(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

std::string yaml_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

}  // namespace

std::vector<std::string> expand_range(const std::string& text, const std::string& key, const SourceLocation& where,
                                      std::size_t limit) {
  const auto bad = [&](const std::string& why) {
    return ScenarioError(where, key, text, why + " (ranges read A:B:xK, A:B:+K or A:B with whole numbers)");
  };
  const std::size_t c1 = text.find(':');
  const std::size_t c2 = c1 == std::string::npos ? std::string::npos : text.find(':', c1 + 1);
  std::int64_t lo = 0, hi = 0, step = 1;
  if (!parse_int(text.substr(0, c1), lo) || !parse_int(text.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1), hi))
    throw bad("is not a range");
  bool geometric = false;
  if (c2 != std::string::npos) {
    const std::string s = text.substr(c2 + 1);
    if (s.size() < 2 || (s[0] != 'x' && s[0] != '+') || !parse_int(s.substr(1), step)) throw bad("has a bad step");
    geometric = s[0] == 'x';
  }
  if (lo > hi) throw bad("starts above its end");
  if (geometric ? (step < 2 || lo < 1) : step < 1) throw bad(geometric ? "needs a factor >= 2 and a start >= 1" : "needs a step >= 1");
  std::vector<std::string> values;
  for (std::int64_t v = lo;;) {
    if (values.size() >= limit) throw bad(fmt::format("has more than {} values", limit));
    values.push_back(std::to_string(v));
    // The next value, unless it passes the end (or would overflow 64 bits: 9223372036854775807:9223372036854775807).
    std::int64_t next = 0;
    if (geometric ? __builtin_mul_overflow(v, step, &next) : __builtin_add_overflow(v, step, &next)) break;
    if (next > hi) break;
    v = next;
  }
  return values;
}

AxisSpec axis_from_yaml(const std::string& key, const YAML::Node& values, const SourceLocation& where) {
  check_dotted_key(where, key, "");
  AxisSpec spec{key, {}, where};
  if (values.IsSequence()) {
    for (const YAML::Node& item : values) spec.values.push_back(yaml_text(item));
  } else if (values.IsScalar() && values.Scalar().find(':') != std::string::npos) {
    spec.values = expand_range(values.Scalar(), key, where);
  } else if (values.IsScalar()) {
    spec.values.push_back(values.Scalar());
  } else {
    throw ScenarioError(where, key, yaml_text(values), "is not a list of values or a range such as 64:8192:x2");
  }
  if (spec.values.empty()) throw ScenarioError(where, key, "[]", "has no values");
  return spec;
}

AxisSpec axis_from_text(const std::string& text) {
  const SourceLocation where{"--axis " + short_excerpt(text), 0, 0};
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw ScenarioError(where, text, "", "is not KEY=VALUES (e.g. --axis plan.tp=[1,2,4,8] or --axis cluster.islands.0.gpus=64:8192:x2)");
  const std::string key = text.substr(0, eq);
  const std::string values = text.substr(eq + 1);
  return axis_from_yaml(key, load_yaml_text(values, where, key), where);
}

search::Axis build_axis(const ScenarioDocument& doc, const model::Scenario& base, const Catalog& catalog,
                        const AxisSpec& spec, const std::atomic<bool>* stop) {
  search::Axis axis;
  axis.name = spec.key;
  for (const std::string& value : spec.values) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) throw Interrupted();
    ScenarioDocument copy = doc;
    apply_override(copy, Override{spec.key, value, spec.key + "=" + value});
    model::Scenario varied;
    try {
      varied = parse_scenario(copy, catalog);
    } catch (const ScenarioError& e) {
      throw ScenarioError(spec.where, spec.key, value, std::string("is not a usable value: ") + e.what());
    }
    axis.labels.push_back(value);
    axis.patches.push_back(search::make_patch(base, varied));
  }
  return axis;
}

}  // namespace shardmeter::cli
