#pragma once
// The current time as the tool writes it into provenance and directory names: UTC, ISO 8601.
#include <string>

namespace shardmeter::cli {

std::string utc_now_iso8601();   // "2026-12-01T04:50:42Z": the `created` provenance of result files
std::string utc_today();         // "2026-12-01": nightly's date directory

}  // namespace shardmeter::cli
