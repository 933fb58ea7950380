#include "src/planning/search_space.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace {

// Axes must set disjoint bytes (search/README.md, "Compilation"); find the first clash in the order written so
// the error points at the later of the two axes, with both names.
void check_independent(const std::vector<search::Axis>& axes, const std::vector<AxisSpec>& specs) {
  std::vector<int> owner(sizeof(model::Scenario), -1);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    for (const search::Patch& patch : axes[a].patches) {
      for (const search::PatchRange& r : patch.ranges) {
        for (std::uint32_t i = r.offset; i < r.offset + r.size; ++i) {
          const int o = owner[i];
          if (o >= 0 && o != static_cast<int>(a))
            throw ScenarioError(specs[a].where, "search.axes." + specs[a].key, "[" + join(specs[a].values) + "]",
                                fmt::format("sets some of the same scenario fields as search.axes.{} (axes must vary "
                                            "independent keys; merge them into one axis of maps instead)",
                                            specs[static_cast<std::size_t>(o)].key));
          owner[i] = static_cast<int>(a);
        }
      }
    }
  }
}

}  // namespace

search::Space build_search_space(const LoadedScenario& base, const SearchSection& section, const Catalog& catalog) {
  if (!section.present)
    throw ScenarioError(SourceLocation{base.doc.path, 0, 0}, "search", "",
                        "is missing: shardmeter search needs a search: section with axes (see docs/search.md)");
  if (section.axes.empty())
    throw ScenarioError(locate(base.doc, "search"), "search.axes", "",
                        "is required: give at least one axis, e.g. plan.tp: [1, 2, 4, 8]");
  std::vector<search::Axis> axes;
  for (const AxisSpec& spec : section.axes) {
    search::Axis axis = build_axis(base.doc, base.scenario, catalog, spec);
    axis.name = spec.key;
    axes.push_back(std::move(axis));
  }
  check_independent(axes, section.axes);
  try {
    return search::Space(base.scenario, std::move(axes));
  } catch (const std::overflow_error&) {
    throw ScenarioError(locate(base.doc, "search.axes"), "search.axes", "",
                        "spans 2^64 candidates or more: remove values or axes");
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(locate(base.doc, "search.axes"), "search.axes", "", std::string("is not a valid space: ") + e.what());
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
