#pragma once
// Text for the files the tool writes, in one place: escaping for HTML/XML, Markdown, TOML, comments, JSON and
// messages (CSV quoting is results/files/csv.hpp), and numbers as people read them ("$1.25M", "830k"). Names and
// labels may come from a foreign result file: every escaper first replaces bytes that are not UTF-8 by U+FFFD.
// Pure functions; the report, plot, index and export renderers share them.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace shardmeter::results {

// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// Escapes &, <, >, " and ' so the text is safe in XML/XHTML character data and in quoted attribute values.
// Control characters other than tab, LF and CR (not allowed in XML 1.0) become U+FFFD.
std::string escape_xml(std::string_view text);

// Text on one comment line of a TOML, Python or shell file: CR and LF become spaces, other control characters
// U+FFFD, so a name from a file cannot end the comment and start code.
std::string comment_text(std::string_view text);
// A quoted TOML basic string ("..."): \ and " escaped, control characters and DEL as \uXXXX.
std::string toml_string(std::string_view text);

// At most `max_bytes` of text from a foreign file for a one-line message: control characters as '?', "..." appended
// when cut (at a character boundary).
std::string message_excerpt(std::string_view text, std::size_t max_bytes = 100);

// Text from a file for a terminal: control characters (C0 but tab and LF, DEL, and the C1 range U+0080..U+009F,
// which includes the 8-bit CSI) become '?', so a `description:` holding escape sequences cannot move the cursor,
// retitle the window or hide text. Bytes that are not UTF-8 become U+FFFD first.
std::string terminal_text(std::string_view text);

// A link target for a generated page: a file name relative to the page, percent-encoded (every byte but letters,
// digits, '-', '.', '_', '~' and '/') and prefixed with "./", so no name can become a scheme ("javascript:"),
// a fragment, a query or a line break. Returns "" for "".
std::string relative_href(std::string_view file);

// JSON text indented by 2 with a final newline; invalid UTF-8 in strings becomes U+FFFD instead of an exception
// (nlohmann's dump throws type_error 316 on it).
std::string json_text(const nlohmann::json& value);

// Escapes text for one Markdown table cell: | and \ are backslash-escaped, line breaks become spaces, and the
// characters Markdown would read as markup (*, _, `, <, >, [, ]) are backslash-escaped too.
std::string escape_markdown_cell(std::string_view text);

// `value` with `significant` significant digits and an SI suffix: 1234 -> "1.23k", 2.5e6 -> "2.5M", 0.5 -> "0.5".
// Trailing zeros are dropped. Non-finite values print as "n/a".
std::string format_si(double value, int significant = 3);
// US dollars with an SI suffix: 1.25e6 -> "$1.25M", 830 -> "$830", -2500 -> "-$2.5k".
std::string format_usd(double value, int significant = 3);
// A ratio as a percentage: 0.4123 -> "41.2%".
std::string format_percent(double ratio, int decimals = 1);
// A signed relative change: 0.125 -> "+12.5%", -0.03 -> "-3.0%".
std::string format_change(double ratio, int decimals = 1);
// A plain number with `decimals` fixed decimals ("12.35"); "n/a" when not finite.
std::string format_fixed(double value, int decimals);

}  // namespace shardmeter::results
