#pragma once
// What a search hands to the writers: the points (scenario + estimate + where they sit in the search space)
// and the provenance of the run.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/estimate.hpp"
#include "model/scenario.hpp"
#include "results/front/objective.hpp"

namespace shardmeter::results {

struct FrontPoint {
  model::Scenario scenario;
  model::Estimate estimate;
  std::uint64_t index = 0;                  // candidate index in the search space (mixed-radix encoding)
  std::vector<std::string> axis_values;     // label of each search axis, in RunInfo::axes order ("h100-sxm", "4")
};

// Provenance of one search run; stored as root attributes of the HDF5 file and as `run` in JSON.
struct RunInfo {
  std::string scenario_text;                // the scenario file as read (with --set overrides applied by the loader)
  std::string scenario_name;
  std::string version;                      // ShardMeter version
  std::string method;                       // "exhaustive", "anneal"
  std::uint64_t seed = 0;
  std::int64_t threads = 0;
  std::uint64_t space_size = 0;             // candidates in the search space
  std::uint64_t evaluated = 0;              // candidates looked at (including rejected ones)
  std::uint64_t feasible = 0;
  std::map<std::string, std::uint64_t> rejected;  // reason name (model::reason_name or a constraint) -> count
  double elapsed_s = 0;
  bool complete = true;                     // false when the search was interrupted or hit a budget
  std::vector<model::Objective> objectives; // e.g. {total_cost_usd, min}, {tokens_per_s, max}
  std::vector<std::string> axes;            // dotted paths of the search axes ("plan.tp", "cluster.islands.0.gpu")
  std::string created;                      // ISO 8601 timestamp, supplied by the caller (never read from the clock here)

  friend bool operator==(const RunInfo&, const RunInfo&) = default;
};

}  // namespace shardmeter::results
