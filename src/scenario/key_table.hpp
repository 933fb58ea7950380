#pragma once
// The key table: every key a scenario file or a catalog file may contain, declared once — its section, name, type,
// unit, default, bounds, meaning, and the model member it fills with the unit conversion. The section parsers
// read through it (src/scenario/key_reader.hpp), `shardmeter schema` and docs/scenarios.md's key table print it
// (src/scenario/scenario_schema.hpp), and the shipped table is src/scenario/scenario_keys.cpp. Parsers and the
// schema take a table as a parameter (the shipped one by default), so a changed entry reaches all of them.
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/scenario/range.hpp"

namespace shardmeter::cli {

class YamlField;
struct KeySpec;

enum class Section {
  top,             // the scenario file's top level
  model,           // model:
  training,        // training:
  cluster,         // cluster:
  island,          // cluster.islands[N] (plus every gpu_fields key as an override)
  gpu_fields,      // fields of a GPU type: catalog entry, inline `gpu:` map, island override
  gpu_catalog,     // extra fields only the catalog (or an inline gpu map) carries
  inline_gpu,      // the keys only an inline `gpu:` map has
  efficiency,      // ...efficiency:
  wan,             // cluster.wan:
  link_override,   // cluster.links[N]
  plan,            // plan:
  diloco,          // plan.diloco:
  runtime,         // runtime:
  goodput,         // goodput:
  search,          // search: (read by src/planning/search_section.cpp)
  search_axes,     // search.axes: (documentation only: any dotted scenario key)
  search_constraints,  // search.constraints:
  search_objective,    // search.objectives[N] in its map form
  link_catalog,    // scenarios/links.yaml entries
  preset_file,     // scenarios/models/<preset>.yaml top level
  price_file,      // entries of a `--prices` file (src/scenario/price_overrides.hpp)
};

// One address per struct type: what KeyAccess::object holds and the section readers check against.
template <class T>
inline constexpr char object_tag = 0;

// How a key reaches the member it fills: functions generated per member by src/scenario/key_access.hpp.
struct KeyAccess {
  const void* object;                                                      // the struct: key_access.hpp's object_tag<T>
  std::string (*type)();                                                   // "int", "number", "bool", "gelu | swiglu"
  void (*read)(const KeySpec& key, const YamlField& value, void* object);  // bounds, names, unit conversion
  std::string (*show)(const void* object);                                 // the member's value, exactly
  std::string (*model_default)();                  // show() of a default-constructed struct (model/*_spec.hpp)
  std::string (*table_default)(const KeySpec& key);  // show() of one after the key's `value` default is written
};

// What a key is when a file does not give it.
struct KeyDefault {
  enum class Kind {
    value,      // `text` is read as if the file had it (same reader, same conversion) before the section is read
                // (by the section's own code when the row has no access)
    required,   // the section's parser reports it missing: "<key> <problem>"
    derived,    // computed from other keys by `derive` after the section is read
    inherited,  // taken from the same key of section `from` (cluster.links[N] from cluster.wan)
    described,  // set by its section's own code (a catalog value, a name from the entry's index), or absent
  };
  Kind kind = Kind::described;
  std::string_view text;                    // value: as written in a file; otherwise the schema's wording
  std::string_view shown = "{}";            // value: the schema's wording, "{}" standing for `text`
  std::string_view problem = {};            // required: e.g. "is required (sequences per optimizer step)"
  void (*derive)(void* object) = nullptr;   // derived
  Section from = Section::top;              // inherited

  static constexpr KeyDefault value(std::string_view text, std::string_view shown = "{}") {
    return {Kind::value, text, shown};
  }
  static constexpr KeyDefault required(std::string_view text, std::string_view problem) {
    return {Kind::required, text, "{}", problem};
  }
  static constexpr KeyDefault derived(std::string_view text, void (*derive)(void*)) {
    return {Kind::derived, text, "{}", {}, derive};
  }
  static constexpr KeyDefault inherited(Section from) { return {Kind::inherited, {}, "{}", {}, nullptr, from}; }
  static constexpr KeyDefault described(std::string_view text) { return {Kind::described, text}; }
};

// Where a GPU field is required, and whether the catalog must cite its number.
enum KeyFlag : unsigned {
  kRequiredInCatalog = 1u << 0,   // every entry of scenarios/gpus.yaml gives it
  kRequiredInline = 1u << 1,      // every inline `gpu:` map gives it
  kCited = 1u << 2,               // a catalog entry that gives it names its source under `sources:`
};

struct KeySpec {
  std::string_view name;
  std::string_view type;               // as the schema shows it; empty: the member's type (access->type())
  std::string_view unit;               // "" when dimensionless
  KeyDefault fallback;                 // ("default" is a keyword)
  Range bounds;                        // numbers: the values accepted, in the unit written
  std::string_view doc;
  const KeyAccess* access = nullptr;   // null: read by its section's own code (maps, lists, names, lookups)
  unsigned flags = 0;                  // KeyFlag

  std::string type_text() const { return type.empty() && access != nullptr ? access->type() : std::string(type); }
};

struct SectionKeys {
  Section section;
  std::string_view where;  // the YAML path of the section, shown as code
  std::string_view note;
  std::vector<KeySpec> keys;
};

class KeyTable {
public:
  explicit KeyTable(std::vector<SectionKeys> sections);

  std::span<const SectionKeys> sections() const { return sections_; }
  const SectionKeys& section(Section section) const;
  std::span<const KeySpec> keys(Section section) const { return this->section(section).keys; }
  // A key by section and name; std::logic_error when the table lacks it.
  const KeySpec& key(Section section, std::string_view name) const;
  KeySpec& key(Section section, std::string_view name);
  // The key names of one or more sections, concatenated in table order (a YamlMap's allowed keys).
  std::vector<std::string_view> names(std::initializer_list<Section> sections) const;

private:
  std::vector<SectionKeys> sections_;
};

}  // namespace shardmeter::cli
