#pragma once
// Numbers as the search report prints them: 1,234,567; $9.15 M; 39.3 %; 1.23 M; 0.21 s.
#include <cstdint>
#include <string>

namespace shardmeter::cli {

std::string grouped(double v);             // "1,234,567" (rounded); "n/a" when not finite
std::string usd(double v);                 // "$950", "$12,345", "$9.15 M", "$1.20 B"
std::string percent(double fraction);      // "39.3 %"
std::string count_si(double v);            // "950", "12.3 k", "1.23 M", "4.56 G"
std::string duration(double seconds);      // "85 ms", "1.23 s", "2 min 05 s"

}  // namespace shardmeter::cli
