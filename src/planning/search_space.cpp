#include "src/planning/search_space.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "model/spec/enum_names.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

std::optional<Override> implied_stack_pin(const LoadedScenario& base) {
  if (scalar_at(base.doc, "plan.stack")) return std::nullopt;
  return Override{"plan.stack", std::string(model::enum_name(base.scenario.plan.stack)),
                  "plan.stack (implied by plan.sharding)"};
}

search::Space build_search_space(const LoadedScenario& base, const SearchSection& section, const Catalog& catalog,
                                 const std::atomic<bool>* stop) {
  if (!section.present)
    throw ScenarioError(SourceLocation{base.doc.path, 0, 0}, "search", "",
                        "is missing: shardmeter search needs a search: section with axes (see docs/search.md)");
  if (section.axes.empty())
    throw ScenarioError(locate(base.doc, "search"), "search.axes", "",
                        "is required: give at least one axis, e.g. plan.tp: [1, 2, 4, 8]");
  // A stack the scenario leaves out is pinned for every candidate (implied_stack_pin).
  std::optional<LoadedScenario> pinned;
  if (const std::optional<Override> pin = implied_stack_pin(base)) {
    // Parsed, not checked: a search's base plan need not be consistent on its own (the axes change it; a re-planned
    // sweep point holds a base layout the new size cannot run), and each candidate is checked as it is visited.
    pinned = LoadedScenario{base.doc, {}, base.name};
    apply_override(pinned->doc, *pin);
    pinned->scenario = parse_scenario(pinned->doc, catalog);
  }
  const LoadedScenario& from = pinned ? *pinned : base;
  std::vector<search::Axis> axes;
  for (const AxisSpec& spec : section.axes) axes.push_back(build_axis(from.doc, from.scenario, catalog, spec, stop));
  try {
    return search::Space(from.scenario, std::move(axes));
  } catch (const search::SpaceError& e) {
    if (e.other_axis() >= 0) {
      // Two axes change the same bytes (search::Space is where that is checked): blame the later one, as written.
      const AxisSpec& spec = section.axes[static_cast<std::size_t>(e.axis())];
      const AxisSpec& other = section.axes[static_cast<std::size_t>(e.other_axis())];
      // plan.stack beside an island's GPU type: a catalog GPU's efficiency constants are per stack (gpus.yaml
      // efficiency.stacks) and are resolved into the island's GPU fields when the scenario is read
      // (scenario_parse.cpp apply_stack_efficiency), so both axes write them. No axis of maps can join keys of two
      // sections; the model would have to pick the set by plan.stack at evaluation, which the calibration fit
      // (src/validation/calibration.cpp) writes around. docs/search.md "The stack" says what to do instead.
      const auto is_gpu = [](const std::string& key) {
        return key.starts_with("cluster.islands.") && key.ends_with(".gpu");
      };
      if ((spec.key == "plan.stack" && is_gpu(other.key)) || (is_gpu(spec.key) && other.key == "plan.stack")) {
        const AxisSpec& stack = spec.key == "plan.stack" ? spec : other;
        const AxisSpec& gpu = spec.key == "plan.stack" ? other : spec;
        throw ScenarioError(stack.where, "search.axes.plan.stack", "[" + join(stack.values) + "]",
                            fmt::format("cannot be searched together with search.axes.{}: the catalog's efficiency "
                                        "constants are per (GPU type, stack) and are fixed when the scenario is "
                                        "read, so both axes set them; search once per stack (--set plan.stack=NAME, "
                                        "or --framework NAME) and compare the fronts (docs/search.md, \"The "
                                        "stack\")", gpu.key));
      }
      throw ScenarioError(spec.where, "search.axes." + spec.key, "[" + join(spec.values) + "]",
                          fmt::format("sets some of the same scenario fields as search.axes.{} (axes must vary "
                                      "independent keys; merge them into one axis of maps instead)",
                                      section.axes[static_cast<std::size_t>(e.other_axis())].key));
    }
    throw ScenarioError(locate(base.doc, "search.axes"), "search.axes", "",
                        std::string("is not a valid space: ") + e.what());
  } catch (const std::overflow_error&) {
    throw ScenarioError(locate(base.doc, "search.axes"), "search.axes", "",
                        "spans 2^64 candidates or more: remove values or axes");
  }
}

int max_island_entries(const search::Space& space) {
  int n = space.base().cluster.island_entries;
  for (int a = 0; a < space.axis_count(); ++a) {
    for (const search::Patch& patch : space.axis(a).patches) {
      model::Scenario s = space.base();
      patch.apply(s);
      n = std::max(n, s.cluster.island_entries);
    }
  }
  return n;
}

std::size_t longest_label(const search::Space& space) {
  std::size_t n = 1;
  for (int a = 0; a < space.axis_count(); ++a)
    for (const std::string& label : space.axis(a).labels) n = std::max(n, label.size());
  return n;
}

}  // namespace shardmeter::cli
