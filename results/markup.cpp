#include "results/markup.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

namespace shardmeter::results {

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (u < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 forbids these characters even as references
        else
          out += c;
    }
  }
  return out;
}

std::string comment_text(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r') out += ' ';
    else if (u < 0x20 && c != '\t') out += "\xEF\xBF\xBD";
    else out += c;
  }
  return out;
}

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
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
  for (const char c : text) {
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

}  // namespace

std::string format_si(double value, int significant) {
  if (!std::isfinite(value)) return "n/a";
  static constexpr std::array<const char*, 7> kSuffix = {"", "k", "M", "G", "T", "P", "E"};
  const double a = std::fabs(value);
  if (a < 1000) {
    // Small values keep their significant digits ("0.00123"); rounding can carry into the next unit ("999.7" -> "1k").
    const std::string s = significant_fixed(value, significant);
    if (std::fabs(std::stod(s)) < 1000) return s;
  }
  int unit = 0;
  double scaled = value;
  while (unit + 1 < static_cast<int>(kSuffix.size()) && std::fabs(scaled) >= 1000) {
    scaled /= 1000;
    ++unit;
  }
  std::string digits = significant_fixed(scaled, significant);
  if (std::fabs(std::stod(digits)) >= 1000 && unit + 1 < static_cast<int>(kSuffix.size())) {
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

std::string format_percent(double ratio, int decimals) {
  if (!std::isfinite(ratio)) return "n/a";
  return fmt::format("{:.{}f}%", ratio * 100.0, decimals);
}

std::string format_change(double ratio, int decimals) {
  if (!std::isfinite(ratio)) return "n/a";
  return fmt::format("{:+.{}f}%", ratio * 100.0, decimals);
}

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace shardmeter::results
