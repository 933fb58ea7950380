#include "src/planning/search_section.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "results/export/framework.hpp"
#include "model/spec/metrics.hpp"
#include "results/front/objective.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/scenario/scenario_keys.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace {

// Top-level scenario sections an axis may vary (name, description and search itself are not candidates' fields).
constexpr std::array<std::string_view, 6> kAxisSections = {"model", "training", "cluster", "plan", "runtime", "goodput"};

// `feasible` is always required (memory fit) and is 1 on every front point: not a metric to bound or optimise.
const model::Metric* usable_metric(std::string_view name) {
  return name == "feasible" ? nullptr : model::find_metric(name);
}

std::vector<std::string> usable_metric_names() {
  std::vector<std::string> names;
  for (const model::Metric& m : model::metrics())
    if (usable_metric(m.name)) names.emplace_back(m.name);
  return names;
}

std::string key_text(const YAML::Node& key) { return key.IsScalar() ? key.Scalar() : node_text(key); }

void check_axis_key(const std::string& key, const SourceLocation& where, const YAML::Node& values) {
  const auto bad = [&](const std::string& problem) {
    return ScenarioError(where, "search.axes." + key, node_text(values), problem);
  };
  if (key.empty() || key.find_first_of(" \t") != std::string::npos || key.front() == '.' || key.back() == '.' ||
      key.find("..") != std::string::npos)
    throw bad("is not a dotted scenario key (e.g. plan.tp or cluster.islands.0.gpus)");
  const std::string section = key.substr(0, key.find('.'));
  if (std::find(kAxisSections.begin(), kAxisSections.end(), section) == kAxisSections.end())
    throw bad("cannot be searched: axes vary keys under " + join(kAxisSections) + " (e.g. plan.tp)");
}

std::vector<AxisSpec> parse_axes(const YamlField& field) {
  std::vector<AxisSpec> axes;
  if (field.is_null()) return axes;
  if (!field.node().IsMap())
    throw field.error("is not a map of dotted scenario keys to values (e.g. plan.tp: [1, 2, 4, 8])");
  std::set<std::string> seen;
  for (const auto& entry : field.node()) {
    const std::string key = key_text(entry.first);
    const std::string path = field.path() + "." + key;
    const SourceLocation key_at = field.source().at(entry.first, path);
    check_axis_key(key, key_at, entry.second);
    if (!seen.insert(key).second) throw ScenarioError(key_at, path, node_text(entry.second), "is given twice");
    const YamlField values(field.source(), entry.second, path);
    if (values.is_null()) throw values.error("has no values (give a list such as [1, 2, 4] or a range such as 8:64:x2)");
    AxisSpec spec = axis_from_yaml(path, entry.second, values.where());
    spec.key = key;
    axes.push_back(std::move(spec));
  }
  return axes;
}

std::vector<search::GpuQuota> parse_quotas(const YamlField& field, const Catalog& catalog,
                                           const model::Scenario& scenario) {
  std::vector<search::GpuQuota> quotas;
  if (field.is_null()) return quotas;
  if (!field.node().IsMap()) throw field.error("is not a map of GPU types to GPU counts (e.g. {h100-sxm: 512})");
  std::vector<std::string> known;
  for (const auto& [name, entry] : catalog.gpus) known.push_back(name);
  for (int i = 0; i < scenario.cluster.island_entries; ++i) {
    const std::string name(scenario.cluster.islands[static_cast<std::size_t>(i)].gpu.name.view());
    if (std::find(known.begin(), known.end(), name) == known.end()) known.push_back(name);
  }
  std::set<std::string> seen;
  for (const auto& entry : field.node()) {
    const std::string gpu = key_text(entry.first);
    const YamlField count(field.source(), entry.second, field.path() + "." + gpu);
    const SourceLocation key_at = field.source().at(entry.first, count.path());
    if (std::find(known.begin(), known.end(), gpu) == known.end()) {
      const std::string suggestion = closest_match(gpu, known);
      throw ScenarioError(key_at, count.path(), node_text(entry.second),
                          "names no GPU type of the catalog or the scenario" +
                              (suggestion.empty() ? "; known: " + join(known) : " (did you mean " + suggestion + "?)"));
    }
    if (!seen.insert(gpu).second) throw ScenarioError(key_at, count.path(), node_text(entry.second), "is given twice");
    quotas.push_back(search::GpuQuota{gpu, count.as_int64(Range::between(0, 1e7))});
  }
  return quotas;
}

void parse_constraints(const YamlField& field, const Catalog& catalog, const model::Scenario& scenario,
                       SearchSection& out) {
  // Allowed keys: the schema's literal keys, then max_/min_ of every usable metric.
  std::vector<std::string> names;
  for (const KeySpec& k : section_keys(Section::search_constraints))
    if (k.name.find('<') == std::string_view::npos) names.emplace_back(k.name);
  for (const std::string& metric : usable_metric_names())
    for (const char* prefix : {"max_", "min_"})
      if (std::find(names.begin(), names.end(), prefix + metric) == names.end()) names.push_back(prefix + metric);
  const std::vector<std::string_view> allowed(names.begin(), names.end());
  const YamlMap map(field, allowed);
  if (field.is_null()) return;
  for (const auto& entry : field.node()) {
    const std::string name = key_text(entry.first);
    if (name == "gpu_quota") {
      out.quotas = parse_quotas(map[name], catalog, scenario);
      continue;
    }
    // The allowed names are max_ / min_ of a usable metric, so the metric exists.
    const model::Metric* metric = usable_metric(std::string_view(name).substr(4));
    const search::Limit limit = name.starts_with("max_") ? search::Limit::at_most : search::Limit::at_least;
    // The range declared for these keys in src/scenario/scenario_keys.cpp (issue 33: every numeric key is bounded).
    out.constraints.push_back(search::limit_metric(*metric, limit, map[name].as_double(Range::between(-1e30, 1e30))));
  }
}

std::string metric_problem(const std::string& metric) {
  const std::vector<std::string> names = usable_metric_names();
  if (metric == "feasible") return "cannot be an objective: every point of a front fits in memory";
  const std::string suggestion = closest_match(metric, names);
  return "is not a metric" + (suggestion.empty() ? "; metrics: " + join(names) : " (did you mean " + suggestion + "?)");
}

model::Objective parse_objective(const YamlField& item) {
  if (item.is_null()) throw item.error("is empty; expected a metric name or {metric: NAME, sense: min | max}");
  std::optional<model::Direction> sense;
  YamlField metric_field = item;
  if (item.node().IsMap()) {
    const YamlMap map(item, key_names({Section::search_objective}));
    if (!map.has("metric")) throw map.missing("metric", "is required (a metric name such as total_cost_usd)");
    metric_field = map["metric"];
    if (map.has("sense")) {
      const YamlField s = map["sense"];
      sense = results::parse_direction(s.as_string());
      if (!sense) throw s.error("is not one of min | max");
    }
  } else if (!item.node().IsScalar()) {
    throw item.error("is not a metric name or {metric: NAME, sense: min | max}");
  }
  const std::string name = metric_field.as_string();
  const model::Metric* metric = usable_metric(name);
  if (metric == nullptr) throw metric_field.error(metric_problem(name));
  if (!sense) sense = metric->natural;
  if (!sense) throw metric_field.error("has no natural direction: write {metric: " + name + ", sense: min} (or max)");
  return model::Objective{metric, *sense};
}

// Without `objectives:`, the defaults with loss-equivalent (effective) throughput instead of trained tokens/s: every
// plan has a token efficiency (its batch, and DiLoCo's convergence: docs/model.md §9.8), so a larger batch or H is
// not rewarded for tokens that are worth less. The raw tokens/s stays in every table and file.
std::vector<model::Objective> default_objectives_for(const model::Scenario&, const std::vector<AxisSpec>&) {
  std::vector<model::Objective> objectives = search::default_objectives();
  for (model::Objective& o : objectives)
    if (o.name() == "tokens_per_s") o.metric = &model::metric("effective_tokens_per_s");
  return objectives;
}

std::vector<model::Objective> parse_objectives(const YamlField& field, const model::Scenario& scenario,
                                               const std::vector<AxisSpec>& axes) {
  if (field.is_null()) return default_objectives_for(scenario, axes);
  if (!field.node().IsSequence())
    throw field.error("is not a list of metrics (e.g. [total_cost_usd, tokens_per_s])");
  const std::size_t n = field.node().size();
  if (n == 0 || n > static_cast<std::size_t>(search::kMaxObjectives))
    throw field.error("must list 1 to " + std::to_string(search::kMaxObjectives) + " metrics, not " + std::to_string(n));
  std::vector<model::Objective> objectives;
  for (std::size_t i = 0; i < n; ++i) {
    const YamlField item(field.source(), field.node()[i], field.path() + "." + std::to_string(i));
    const model::Objective o = parse_objective(item);
    for (const model::Objective& earlier : objectives)
      if (earlier.metric == o.metric) throw item.error("is given twice");
    objectives.push_back(o);
  }
  return objectives;
}

SearchSection parse_search(const YamlField& field, const Catalog& catalog, const model::Scenario& scenario) {
  SearchSection out;
  out.present = field.node().IsDefined();
  const YamlMap top(field, key_names({Section::search}));
  out.axes = parse_axes(top["axes"]);
  parse_constraints(top["constraints"], catalog, scenario, out);
  out.objectives = parse_objectives(top["objectives"], scenario, out.axes);
  if (const YamlField framework = top["framework"]; !framework.is_null()) {
    out.framework = framework.as_string();
    if (results::find_framework(out.framework) == nullptr)
      throw framework.error("is not a framework: " + results::framework_names());
  }
  return out;
}

}  // namespace

SearchSection read_search_section(const ScenarioDocument& doc, const Catalog& catalog, const model::Scenario& scenario) {
  const YamlSource source{doc.path, &doc.overridden};
  const YAML::Node& node = doc.root.node();
  return parse_search(YamlField(source, node["search"], "search"), catalog, scenario);
}

search::Goal make_goal(const SearchSection& section) {
  return search::Goal{section.objectives, section.constraints, section.quotas};
}

LoadedScenario load_scenario_with_search(const std::string& path, const std::vector<Override>& overrides,
                                         const Catalog& catalog) {
  return load_scenario_with_search(read_scenario_document(path, overrides), catalog);
}

LoadedScenario load_scenario_with_search(ScenarioDocument doc, const Catalog& catalog) {
  LoadedScenario loaded = load_scenario(std::move(doc), catalog);
  const SearchSection section = read_search_section(loaded.doc, catalog, loaded.scenario);
  // Each axis's key and its first and last values, as `search` will apply them: a misspelt key (plan.tpp) or a
  // bad end value is an error for every command. The values between are checked by `search` itself (building
  // every value takes a few milliseconds each).
  for (const AxisSpec& spec : section.axes) {
    AxisSpec ends = spec;
    ends.values = {spec.values.front()};
    if (spec.values.size() > 1) ends.values.push_back(spec.values.back());
    build_axis(loaded.doc, loaded.scenario, catalog, ends);
  }
  return loaded;
}

}  // namespace shardmeter::cli
