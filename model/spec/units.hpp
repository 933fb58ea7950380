#pragma once
// Unit constants. Every quantity inside model/ is in SI base units (bytes, bytes/s, FLOP/s, seconds, USD);
// names carry the unit. Conversions from the units people write in scenario files happen once, at parse time,
// through these helpers.

namespace shardmeter::model {

inline constexpr double kGB = 1e9;                 // decimal gigabyte (docs/model.md §0.3: GB = 1e9 bytes)
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kTera = 1e12;
inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kSecondsPerDay = 86400.0;

constexpr double gbit_per_s_to_bytes_per_s(double gbit_per_s) { return gbit_per_s * 1e9 / 8.0; }
constexpr double bytes_per_s_to_gbit_per_s(double bytes_per_s) { return bytes_per_s * 8.0 / 1e9; }
constexpr double gbyte_per_s_to_bytes_per_s(double gbyte_per_s) { return gbyte_per_s * 1e9; }
constexpr double tbyte_per_s_to_bytes_per_s(double tbyte_per_s) { return tbyte_per_s * 1e12; }
constexpr double tflops_to_flops_per_s(double tflops) { return tflops * 1e12; }
constexpr double ms_to_s(double ms) { return ms * 1e-3; }
constexpr double us_to_s(double us) { return us * 1e-6; }

}  // namespace shardmeter::model
