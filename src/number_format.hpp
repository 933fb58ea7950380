#pragma once
// Numbers as the text reports print them (sweep and thresholds tables): thousands separators, dollars, percent.
#include <string>

namespace shardmeter::cli {

std::string grouped(double v);          // 1234567 -> "1,234,567"; non-finite -> "n/a"
std::string usd(double v);              // "$12.34", "$1,234", "$1.23 M", "$4.56 B"
std::string percent(double fraction);   // 0.125 -> "12.5 %"
std::string seconds(double s);          // "12.34 ms", "1.234 s"

}  // namespace shardmeter::cli
