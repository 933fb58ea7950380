#pragma once
// What one row of a result file is written from: a point of a plan space with its scenario, its estimate, its index
// in the space and its axis labels. A search's front (search::PlanPoint, converted in src/planning/search_job.cpp),
// its --all candidates and a sweep's points all become PlanPoints; results/ never sees the search's own types.
#include <cstdint>
#include <string>
#include <vector>

#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::results {

struct PlanPoint {
  model::Scenario scenario;
  model::Estimate estimate;
  std::uint64_t index = 0;                  // index in the plan space (mixed-radix encoding)
  std::vector<std::string> labels;          // label of each axis, in RunInfo::axes order ("h100-sxm", "4")
};

}  // namespace shardmeter::results
