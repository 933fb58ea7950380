#pragma once
// Reading one section of a file through the key table (src/scenario/key_table.hpp): the table's defaults first, then
// every key the file gives, each with the bounds, names and unit conversion of its row. Keys whose row has no
// access (maps, lists, catalog lookups) are left to the section's parser, which reads them from the same map.
#include <initializer_list>

#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

// `field` as a map of the keys of `sections`: unknown and repeated keys are errors.
YamlMap section_map(const KeyTable& keys, const YamlField& field, std::initializer_list<Section> sections);

// Writes the `value` default of a key with an access into `object` (of the struct its access fills).
void apply_default(const KeySpec& key, void* object);
// Writes every `value` default of `section` into `object` (a struct of the type its rows fill).
void apply_defaults(const KeyTable& keys, Section section, const void* tag, void* object);
// Throws at the map for the first `required` key of `section` it lacks, in table order: "<key> <problem>".
void check_required(const KeyTable& keys, Section section, const YamlMap& map);
// Reads every key of `section` that `map` gives and whose row has an access, in table order.
void read_keys(const KeyTable& keys, Section section, const YamlMap& map, const void* tag, void* object);

template <class T>
void apply_defaults(const KeyTable& keys, Section section, T& object) {
  apply_defaults(keys, section, &object_tag<T>, &object);
}
template <class T>
void read_keys(const KeyTable& keys, Section section, const YamlMap& map, T& object) {
  read_keys(keys, section, map, &object_tag<T>, &object);
}
// Runs the `derived` default of every key of `section` for which given(name) is false.
template <class T, class Given>
void apply_derived(const KeyTable& keys, Section section, T& object, const Given& given) {
  for (const KeySpec& key : keys.keys(section))
    if (key.fallback.kind == KeyDefault::Kind::derived && !given(key.name)) key.fallback.derive(&object);
}

}  // namespace shardmeter::cli
