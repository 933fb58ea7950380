#pragma once
// Fitting the per-GPU-type efficiency constants to the `calibrate` rows of the published-runs table.
// One set of constants per (GPU family, software stack), never per row; `shardmeter calibrate` prints them for scenarios/gpus.yaml.
#include <string>
#include <vector>

#include "src/validation/validation.hpp"

namespace shardmeter::cli {

struct EfficiencyConstants {
  double gemm = 0;
  double gemm_half_dim = 0;
  double attention = 0;
  double contention_scale = 0;
};

struct GpuFit {
  std::string family;           // GPU types sharing a die (catalog `family`) share one set per stack
  std::string stack;            // plan.stack of the rows (docs/model.md §6.7)
  std::vector<std::string> gpus;   // catalog types of the calibrate rows
  int rows = 0;                 // calibrate rows of this (family, stack)
  EfficiencyConstants before, after;
  double mape_before = 0, mape_after = 0;   // over those rows, percent
};

// Coordinate search within physical bounds, deterministic. Updates the scenarios of every run (calibrate,
// holdout and reference) of each fitted (GPU family, stack) with the fitted constants.
std::vector<GpuFit> calibrate(std::vector<ValidationRun>& runs);

}  // namespace shardmeter::cli
