#include "results/markup.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/spec/utf8.hpp"

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

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : valid_utf8(text)) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7F)
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 forbids these characters even as references (DEL: discouraged)
        else
          out += c;
    }
  }
  return out;
}

std::string comment_text(std::string_view text) {
  std::string out;
  for (const char c : valid_utf8(text)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r') out += ' ';
    else if ((u < 0x20 && c != '\t') || u == 0x7F) out += "\xEF\xBF\xBD";
    else out += c;
  }
  return out;
}

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : valid_utf8(text)) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04x}", static_cast<int>(static_cast<unsigned char>(c)));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string escape_markdown_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (const char c : valid_utf8(text)) {
    switch (c) {
      case '\n': out += ' '; break;
      case '\r': break;
      case '|': case '\\': case '*': case '_': case '`': case '<': case '>': case '[': case ']':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// Drops trailing zeros (and a trailing point) of a fixed-point rendering: "1.50" -> "1.5", "2.00" -> "2".
std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Significant digits of |value| < 1000 in fixed notation.
std::string significant_fixed(double value, int significant) {
  if (value == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::max(0, significant - 1 - magnitude);
  return trim_zeros(fmt::format("{:.{}f}", value, decimals));
}

// Whether a fixed-point rendering has reached 1000 (four digits before the point): rounding carried it into the
// next unit ("999.7" with three digits is "1000"). Looks at the text, never parses it back (issue 33: std::stod of
// a rendered subnormal threw out_of_range).
bool reaches_thousand(std::string_view fixed) {
  const std::size_t start = !fixed.empty() && fixed.front() == '-' ? 1 : 0;
  const std::size_t point = fixed.find('.');
  const std::size_t end = point == std::string_view::npos ? fixed.size() : point;
  return end > start && end - start >= 4;
}

// Below this magnitude numbers are shown in scientific notation: a fixed rendering of 5e-324 has 326 decimals.
constexpr double kSmallestFixed = 1e-9;

}  // namespace

std::string format_si(double value, int significant) {
  if (!std::isfinite(value)) return "n/a";
  static constexpr std::array<const char*, 7> kSuffix = {"", "k", "M", "G", "T", "P", "E"};
  const double a = std::fabs(value);
  if (a != 0 && a < kSmallestFixed) return fmt::format("{:.{}e}", value, std::max(0, significant - 1));
  if (a < 1000) {
    // Small values keep their significant digits ("0.00123"); rounding can carry into the next unit ("999.7" -> "1k").
    std::string s = significant_fixed(value, significant);
    if (!reaches_thousand(s)) return s;
  }
  int unit = 0;
  double scaled = value;
  while (unit + 1 < static_cast<int>(kSuffix.size()) && std::fabs(scaled) >= 1000) {
    scaled /= 1000;
    ++unit;
  }
  std::string digits = significant_fixed(scaled, significant);
  if (reaches_thousand(digits) && unit + 1 < static_cast<int>(kSuffix.size())) {
    scaled /= 1000;
    ++unit;
    digits = significant_fixed(scaled, significant);
  }
  return digits + kSuffix[static_cast<std::size_t>(unit)];
}

std::string format_usd(double value, int significant) {
  if (!std::isfinite(value)) return "n/a";
  const std::string magnitude = format_si(std::fabs(value), significant);
  return (value < 0 ? "-$" : "$") + magnitude;
}

// A finite ratio can still overflow when scaled to percent (|ratio| > 1.8e306): checked after scaling, so a crafted
// file never prints "inf%" (issue 33; the fuzz_nightly_index harness found -inf%).
std::string format_percent(double ratio, int decimals) {
  const double percent = ratio * 100.0;
  if (!std::isfinite(percent)) return "n/a";
  return fmt::format("{:.{}f}%", percent, decimals);
}

std::string format_change(double ratio, int decimals) {
  const double percent = ratio * 100.0;
  if (!std::isfinite(percent)) return "n/a";
  return fmt::format("{:+.{}f}%", percent, decimals);
}

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  return fmt::format("{:.{}f}", value, decimals);
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

std::string terminal_text(std::string_view text) {
  const std::string valid = valid_utf8(text);
  std::string out;
  out.reserve(valid.size());
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const auto u = static_cast<unsigned char>(valid[i]);
    if ((u < 0x20 && u != '\t' && u != '\n') || u == 0x7F) {
      out += '?';
    } else if (u == 0xC2 && i + 1 < valid.size() && static_cast<unsigned char>(valid[i + 1]) < 0xA0) {
      out += '?';  // U+0080..U+009F: C1 controls (valid_utf8 guarantees a continuation byte follows 0xC2)
      ++i;
    } else {
      out += valid[i];
    }
  }
  return out;
}

std::string relative_href(std::string_view file) {
  if (file.empty()) return {};
  std::string out = "./";
  for (const char c : file) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~' || c == '/')
      out += c;
    else
      out += fmt::format("%{:02X}", u);
  }
  return out;
}

std::string json_text(const nlohmann::json& value) {
  return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace shardmeter::results
