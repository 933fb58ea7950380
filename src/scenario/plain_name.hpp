#pragma once
// Names a scenario gives (its own name, island names, inline GPU names; catalog GPU names) end up in file names,
// CSV cells, TOML/JSON/shell exports, Markdown and HTML. Restricting them once, where they are read, keeps every
// writer safe: letters, digits, '.', '_' and '-', starting with a letter or digit, and not all digits (an island
// named "1" would shadow index 1 in cluster.links).
#include <cstddef>
#include <string>
#include <string_view>

namespace shardmeter::cli {

// Why `name` is not a plain name of at most `max_length` characters, or "" when it is one.
std::string plain_name_problem(std::string_view name, std::size_t max_length);

}  // namespace shardmeter::cli
