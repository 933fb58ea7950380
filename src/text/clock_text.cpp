#include "src/text/clock_text.hpp"

#include <ctime>

namespace shardmeter::cli {

namespace {

std::string utc_now(const char* pattern) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, pattern, &utc);
  return text;
}

}  // namespace

std::string utc_now_iso8601() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_today() { return utc_now("%Y-%m-%d"); }

}  // namespace shardmeter::cli
