#pragma once
// `shardmeter thresholds`: the FSDP hardware thresholds of one scenario (model/job/thresholds.hpp) as a report or
// one JSON object.
#include <string>

#include "model/spec/estimate.hpp"
#include "model/job/thresholds.hpp"
#include "model/job/wan_thresholds.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace shardmeter::cli {

struct ThresholdsReport {
  std::string name;
  double comm_share = model::kComputeBoundCommShare;   // the compute-bound criterion
  model::Scenario scenario;
  model::Estimate estimate;                              // the scenario as given
  model::Estimate at_floor;                              // at the searched factor with the least exposed share
  model::BandwidthThreshold bandwidth;
  model::TokensThreshold tokens;
  model::WanThresholdTable wan;                          // several islands: WAN bandwidth for a utilisation
  int max_seq_len = 0;
  int seq_granularity = 256;
};

// Runs every threshold query. Throws InputError for a comm share outside (0, 1).
ThresholdsReport compute_thresholds(const LoadedScenario& loaded, double comm_share);

std::string format_thresholds(const ThresholdsReport& report);
// One JSON object, indented, with a final newline.
std::string thresholds_json(const ThresholdsReport& report);

}  // namespace shardmeter::cli
