#include "src/scenario/plain_name.hpp"

#include <algorithm>
#include <cctype>

namespace shardmeter::cli {

std::string plain_name_problem(std::string_view name, std::size_t max_length) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 && static_cast<unsigned char>(c) < 0x80; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || name.size() > max_length)
    return "must be 1 to " + std::to_string(max_length) + " characters long";
  if (!alnum(name.front()) ||
      !std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; }))
    return "is not a plain name: use letters, digits, '.', '_' and '-', starting with a letter or digit";
  if (std::all_of(name.begin(), name.end(), digit)) return "is a number; a name needs a letter (numbers are indices)";
  return "";
}

}  // namespace shardmeter::cli
