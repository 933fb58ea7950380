// parse_scenario: the top level of a scenario document, dispatching each section to its parser.
#include "src/scenario/scenario_parse.hpp"

#include "src/scenario/key_reader.hpp"
#include "src/scenario/parse_cluster.hpp"
#include "src/scenario/parse_model.hpp"
#include "src/scenario/parse_plan.hpp"
#include "src/scenario/parse_training.hpp"
#include "src/scenario/plain_name.hpp"
#include "src/scenario/scenario_check.hpp"
#include "src/scenario/zeroed.hpp"

namespace shardmeter::cli {

namespace {
constexpr std::size_t kMaxScenarioName = 64;

// A catalog GPU's efficiency set for the plan's stack (docs/model.md §6.7), on every island that names the type
// and gives no `efficiency:` of its own (an island's explicit constants win).
void apply_stack_efficiency(const YamlField& cluster, const Catalog& catalog, model::Scenario& s) {
  const YAML::Node islands = cluster.node()["islands"];
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const YAML::Node island = islands[static_cast<std::size_t>(i)];
    if (!island["gpu"].IsScalar() || island["efficiency"].IsDefined()) continue;
    const auto entry = catalog.gpus.find(island["gpu"].as<std::string>());
    if (entry == catalog.gpus.end()) continue;
    const auto set = entry->second.by_stack.find(s.plan.stack);
    if (set == entry->second.by_stack.end()) continue;
    model::GpuSpec& gpu = s.cluster.islands[static_cast<std::size_t>(i)].gpu;
    gpu.gemm_efficiency = set->second.gemm;
    gpu.gemm_half_dim = set->second.gemm_half_dim;
    gpu.attention_efficiency = set->second.attention;
    gpu.contention_scale = set->second.contention_scale;
  }
}

}  // namespace

model::Scenario parse_scenario(const ScenarioDocument& doc, const Catalog& catalog, const KeyTable& keys) {
  // Every byte deterministic (padding included): the search compares scenarios byte-wise.
  model::Scenario s{};
  reset_zeroed(s);

  const YamlSource source{doc.path, &doc.overridden};
  const YamlMap top = section_map(keys, YamlField(source, doc.root.node(), ""), {Section::top});
  check_required(keys, Section::top, top);
  if (const std::string problem = plain_name_problem(top["name"].as_string(), kMaxScenarioName); !problem.empty())
    throw top["name"].error(problem);
  if (top.has("description")) top["description"].as_string();

  parse_model(top["model"], catalog, s.model, keys);
  parse_training(top["training"], s.training, keys);
  parse_cluster(top["cluster"], catalog, s.cluster, keys);
  parse_plan(top["plan"], s.plan, keys);
  apply_stack_efficiency(top["cluster"], catalog, s);
  parse_runtime(top["runtime"], s.runtime, keys);
  parse_goodput(top["goodput"], s.cluster, s.goodput, keys);
  // `search:` belongs to the planning layer (src/planning/search_section.hpp): commands that take a scenario
  // check it there, `shardmeter search` reads it once.
  return s;
}

LoadedScenario load_scenario(const std::string& path, const std::vector<Override>& overrides, const Catalog& catalog,
                             const KeyTable& keys) {
  return load_scenario(read_scenario_document(path, overrides), catalog, keys);
}

LoadedScenario load_scenario(ScenarioDocument doc, const Catalog& catalog, const KeyTable& keys) {
  LoadedScenario loaded;
  loaded.doc = std::move(doc);
  reset_zeroed(loaded.scenario);  // so the copy below keeps zero padding however the compiler copies
  loaded.scenario = parse_scenario(loaded.doc, catalog, keys);
  check_scenario(loaded.scenario, loaded.doc);
  loaded.name = scalar_at(loaded.doc, "name").value_or("");
  return loaded;
}

}  // namespace shardmeter::cli
