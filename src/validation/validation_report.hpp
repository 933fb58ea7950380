#pragma once
// The text `shardmeter validate` and `shardmeter calibrate` print: per-row errors, MAPE per source and use, the
// Korthikanti Table 5 comparison, and the closing line "overall MAPE X.X% over N runs".
#include <string>
#include <vector>

#include "src/validation/validation.hpp"

namespace shardmeter::cli {

std::string format_validation_report(const std::vector<ValidationRun>& runs);

}  // namespace shardmeter::cli
