#pragma once
// Every key a scenario file (or a catalog file) may contain, declared once with its type, unit, default and
// meaning. The parsers take their allowed-key lists from here (unknown keys are errors), and README.md's
// schema table is generated from it (schema_markdown()), so the documentation and the parser cannot drift.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardmeter::cli {

struct KeySpec {
  std::string_view name;
  std::string_view type;         // "int", "number", "bool", "name", "map", "list", or "a | b | c"
  std::string_view unit;         // "" when dimensionless
  std::string_view default_text; // "required", a value, or how it is derived
  std::string_view description;
};

enum class Section {
  top,             // the scenario file's top level
  model,           // model:
  training,        // training:
  cluster,         // cluster:
  island,          // cluster.islands[N] (plus every gpu_fields key as an override)
  gpu_fields,      // fields of a GPU type: catalog entry, inline `gpu:` map, island override
  gpu_catalog,     // extra fields only the catalog (or an inline gpu map) carries
  efficiency,      // ...efficiency:
  wan,             // cluster.wan:
  link_override,   // cluster.links[N]
  plan,            // plan:
  diloco,          // plan.diloco:
  runtime,         // runtime:
  goodput,         // goodput:
  search,          // search: (read by `shardmeter search`)
  search_axes,     // search.axes: (documentation only: any dotted scenario key)
  search_constraints,  // search.constraints:
  search_objective,    // search.objectives[N] in its map form
  link_catalog,    // scenarios/links.yaml entries
  preset_file,     // scenarios/models/<preset>.yaml top level
};

std::span<const KeySpec> section_keys(Section section);
// The allowed key names of one or more sections, concatenated.
std::vector<std::string_view> key_names(std::initializer_list<Section> sections);

// The schema as Markdown tables (one per section), for README.md.
std::string schema_markdown();

}  // namespace shardmeter::cli
