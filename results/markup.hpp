#pragma once
// Text for reports: escaping for HTML/XML and Markdown, and numbers as people read them ("$1.25M", "830k").
// Pure functions; the report, plot and index renderers share them so every page formats a figure the same way.
#include <string>
#include <string_view>

namespace shardmeter::results {

// Escapes &, <, >, " and ' so the text is safe in XML/XHTML character data and in quoted attribute values.
// Control characters other than tab, LF and CR (not allowed in XML 1.0) become U+FFFD.
std::string escape_xml(std::string_view text);

// Text on one comment line of a TOML, Python or shell file: CR and LF become spaces, other control characters
// U+FFFD, so a name from a file cannot end the comment and start code.
std::string comment_text(std::string_view text);
// A quoted TOML basic string ("..."): \ and " escaped, control characters as \uXXXX.
std::string toml_string(std::string_view text);

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
