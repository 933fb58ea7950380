#pragma once
// Escaping text for the formats the tool writes, in one place: names and labels may come from a foreign result
// file, so every writer escapes what it embeds. XML/HTML and Markdown escaping are in results/markup.hpp (the
// report renderers' text helpers); CSV quoting and formula neutralisation in results/files/csv.hpp.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace shardmeter::results {

// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// A TOML basic string, quotes included: " and \ escaped, control characters (U+0000-U+001F, U+007F) as \uXXXX,
// invalid UTF-8 replaced (TOML files must be UTF-8).
std::string toml_string(std::string_view text);

// Text for a `#` comment of a shell script: one line, control characters as spaces, invalid UTF-8 replaced.
std::string shell_comment(std::string_view text);

// At most `max_bytes` of text from a foreign file for a one-line message: control characters as '?', invalid UTF-8
// replaced, "..." appended when cut.
std::string message_excerpt(std::string_view text, std::size_t max_bytes = 100);

// JSON text indented by 2 with a final newline; invalid UTF-8 in strings becomes U+FFFD instead of an exception
// (nlohmann's dump throws type_error 316 on it).
std::string json_text(const nlohmann::json& value);

}  // namespace shardmeter::results
