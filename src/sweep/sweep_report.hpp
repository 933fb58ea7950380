#pragma once
// What `shardmeter sweep` prints: one table row per point (first axis outermost), then the analyses; or the same
// as one JSON object (--json).
#include <string>

#include "src/sweep/sweep.hpp"

namespace shardmeter::cli {

std::string format_sweep_table(const Sweep& sweep);

// {"scenario", "axes": [{"key", "values"}], "knee_axis", "points": [{"axis:<key>": label, ..., metrics,
//  "knee", "comm_transition"}], "knee": [{"fixed", "at", "text"}], "transition": [...]}, indented,
// with a final newline.
std::string sweep_json(const Sweep& sweep);

}  // namespace shardmeter::cli
