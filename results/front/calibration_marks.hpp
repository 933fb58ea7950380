#pragma once
// Whether a front row's GPU type runs on calibrated efficiency constants, read from a file's provenance
// (RunInfo::uncalibrated_gpus and uncalibrated_gpu_stacks; results/README.md). The status is per (GPU type, stack):
// B200 is fitted for megatron_te only (scenarios/gpus.yaml `calibration_stacks`). The report, the export headers and
// plan-json ask here; the search table knows each row's scenario and asks the catalog.
#include <string>
#include <string_view>

#include "results/front/row.hpp"
#include "results/front/run_info.hpp"

namespace shardmeter::results {

// An entry of uncalibrated_gpu_stacks: "b200:torch_fsdp2".
std::string gpu_stack_key(std::string_view gpu, std::string_view stack);

enum class RowCalibration { calibrated, uncalibrated, unknown };

// GPU type `gpu` of `row`. `stack` is the row's plan.stack when the caller knows it; empty: the row's
// `axis:plan.stack` label, or, when no axis can set plan.stack, the one stack all rows share. unknown: a file
// before schema_version 3. A file without uncalibrated_gpu_stacks (written before the status depended on the stack)
// marks every row of a listed type; so does a file whose stack cannot be told per row (an axis over all of `plan`).
RowCalibration gpu_calibration(const RunInfo& info, const Row& row, std::string_view gpu, std::string_view stack = {});

}  // namespace shardmeter::results
