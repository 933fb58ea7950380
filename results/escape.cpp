#include "results/escape.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/utf8.hpp"

namespace shardmeter::results {

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = model::utf8_sequence_length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : valid_utf8(text)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7F) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(u));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string shell_comment(std::string_view text) {
  std::string out = valid_utf8(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  return out;
}

std::string message_excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out = valid_utf8(text.substr(0, max_bytes + 4));  // a little more: the cut below is at a character
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  if (text.size() <= max_bytes && out.size() <= max_bytes) return out;
  std::size_t cut = max_bytes > 3 ? max_bytes - 3 : 0;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  return out.substr(0, cut) + "...";
}

std::string json_text(const nlohmann::json& value) {
  return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace shardmeter::results
