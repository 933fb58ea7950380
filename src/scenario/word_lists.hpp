#pragma once
// Lists of names in messages: "a, b, c", and the closest known name to a misspelt one ("did you mean h100-sxm?").
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardmeter::cli {

// Levenshtein-close candidate for a misspelt name, or empty.
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);
// "a, b, c"
std::string join(std::span<const std::string_view> names, std::string_view separator = ", ");
std::string join(const std::vector<std::string>& names, std::string_view separator = ", ");

}  // namespace shardmeter::cli
