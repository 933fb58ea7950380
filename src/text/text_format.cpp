#include "src/text/text_format.hpp"

#include <cmath>

#include <fmt/format.h>

namespace shardmeter::cli {

std::string grouped(double v) {
  if (!std::isfinite(v)) return "n/a";
  const long long n = std::llround(v);
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string text = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text.push_back(',');
    text.push_back(digits[i]);
  }
  return text;
}

std::string usd(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v >= 1e9) return fmt::format("${:.2f} B", v / 1e9);
  if (v >= 1e6) return fmt::format("${:.2f} M", v / 1e6);
  if (v >= 1e3) return fmt::format("${}", grouped(v));
  return fmt::format("${:.2f}", v);
}

std::string percent(double fraction) {
  return std::isfinite(fraction) ? fmt::format("{:.1f} %", 100.0 * fraction) : "n/a";
}

std::string signed_percent(double change) {
  return std::isfinite(change) ? fmt::format("{:+.1f} %", 100 * change) : "n/a";
}

std::string seconds(double s) {
  if (!std::isfinite(s)) return "n/a";
  if (s != 0 && std::fabs(s) < 0.1) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

std::string count_si(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v >= 1e9) return fmt::format("{:.2f} G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f} M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.1f} k", v / 1e3);
  return grouped(v);
}

std::string duration(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  if (seconds < 0.01) return fmt::format("{:.2f} ms", seconds * 1e3);
  if (seconds < 0.1) return fmt::format("{:.0f} ms", seconds * 1e3);
  if (seconds < 120) return fmt::format("{:.2f} s", seconds);
  const long long s = std::llround(seconds);
  return fmt::format("{} min {:02} s", s / 60, s % 60);
}

}  // namespace shardmeter::cli
