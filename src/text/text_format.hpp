#pragma once
// Numbers as every text table prints them (estimate, search, sweep, thresholds): 1,234,567; $9.15 M; 39.3 %;
// 1.23 M; 12.34 ms.
#include <cstdint>
#include <string>

namespace shardmeter::cli {

std::string grouped(double v);             // "1,234,567" (rounded); "n/a" when not finite
std::string usd(double v);                 // "$950", "$12,345", "$9.15 M", "$1.20 B"
std::string percent(double fraction);      // "39.3 %"
std::string signed_percent(double change); // "+15.2 %", "-3.0 %" (a relative change)
std::string count_si(double v);            // "950", "12.3 k", "1.23 M", "4.56 G"
std::string duration(double seconds);      // "85 ms", "1.23 s", "2 min 05 s"
std::string seconds(double s);             // "12.34 ms", "1.234 s" (step-time components)

}  // namespace shardmeter::cli
