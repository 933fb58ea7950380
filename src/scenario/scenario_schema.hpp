#pragma once
// `shardmeter schema` and docs/scenarios.md's key table: the key table (src/scenario/key_table.hpp) as Markdown,
// one table per section, so the documentation and the parsers read the same rows.
#include <string>

#include "src/scenario/key_table.hpp"
#include "src/scenario/scenario_keys.hpp"

namespace shardmeter::cli {

// A key's default as the schema shows it: the value, "required", how it is derived, or where it comes from.
std::string default_text(const KeyTable& keys, const KeySpec& key);

// The schema as Markdown tables (one per section), for docs/scenarios.md.
std::string schema_markdown(const KeyTable& keys = scenario_keys());

}  // namespace shardmeter::cli
