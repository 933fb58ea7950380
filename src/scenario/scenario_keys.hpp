#pragma once
// The shipped key table (src/scenario/key_table.hpp): every key of a scenario file and of the catalogs.
// To add a key, add its row to src/scenario/scenario_keys.cpp (see src/scenario/README.md).
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "src/scenario/key_table.hpp"

namespace shardmeter::cli {

const KeyTable& scenario_keys();

// Shorthands on the shipped table, for code that reads a section the table documents (e.g. search:).
std::span<const KeySpec> section_keys(Section section);
std::vector<std::string_view> key_names(std::initializer_list<Section> sections);

}  // namespace shardmeter::cli
