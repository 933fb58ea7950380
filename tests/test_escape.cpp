// Issue 14: escaping of names and labels for TOML, comments and JSON (results/markup.hpp). A name read from
// a foreign result file may hold DEL, VT, FF or bytes that are not UTF-8; the exported TOML was then invalid and
// the JSON writer threw type_error 316 (exit 1).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "results/markup.hpp"

using namespace shardmeter;

TEST_CASE("invalid UTF-8 becomes U+FFFD; valid text is unchanged") {
  CHECK(results::valid_utf8("h100-sxm µs") == "h100-sxm µs");
  CHECK(results::valid_utf8("a\xff" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(results::valid_utf8("\xC3") == "\xEF\xBF\xBD");              // truncated two-byte sequence
  CHECK(results::valid_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/': two bad bytes
  CHECK(results::valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
}

TEST_CASE("TOML basic strings escape quotes, backslashes, every control character and DEL") {
  CHECK(results::toml_string("lab") == "\"lab\"");
  CHECK(results::toml_string("say \"hi\" \\") == "\"say \\\"hi\\\" \\\\\"");
  // VT (0x0B), FF (0x0C), DEL (0x7F), NUL: TOML forbids them raw in a basic string.
  CHECK(results::toml_string(std::string("a\x0b" "b\x0c" "c\x7f" "d\0e", 9)) ==
        "\"a\\u000bb\\u000cc\\u007fd\\u0000e\"");
  CHECK(results::toml_string("x\xff") == "\"x\xEF\xBF\xBD\"");
}

TEST_CASE("comment text stays on one line, without control characters or invalid UTF-8") {
  CHECK(results::comment_text("east\nrm -rf /\r\x7f\xff") == "east rm -rf / \xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("XML and Markdown escaping replace invalid UTF-8 (an XML parser rejects it)") {
  CHECK(results::escape_xml("a<\xff") == "a&lt;\xEF\xBF\xBD");
  CHECK(results::escape_markdown_cell("a|\xff") == "a\\|\xEF\xBF\xBD");
}

TEST_CASE("JSON with invalid UTF-8 is written with U+FFFD instead of throwing") {
  const nlohmann::json j = {{"name", std::string("is\xc3")}};
  CHECK(results::json_text(j) == "{\n  \"name\": \"is\xEF\xBF\xBD\"\n}\n");
}

TEST_CASE("message excerpts of foreign text are short, one line and UTF-8") {
  CHECK(results::message_excerpt("root:x:0:0\nuser") == "root:x:0:0?user");
  CHECK(results::message_excerpt(std::string(200, 'a'), 10) == "aaaaaaa...");
  CHECK(results::message_excerpt("ab\xff", 10) == "ab\xEF\xBF\xBD");
  CHECK(results::message_excerpt("µµµµµ", 6) == "µ...");  // cut before a character, never inside one
}
