#include "results/front/calibration_marks.hpp"

#include <algorithm>

namespace shardmeter::results {

std::string gpu_stack_key(std::string_view gpu, std::string_view stack) {
  return std::string(gpu) + ":" + std::string(stack);
}

RowCalibration gpu_calibration(const RunInfo& info, const Row& row, std::string_view gpu, std::string_view stack) {
  if (!info.uncalibrated_gpus) return RowCalibration::unknown;
  const auto listed = [](const std::vector<std::string>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (!listed(*info.uncalibrated_gpus, gpu)) return RowCalibration::calibrated;
  if (!info.uncalibrated_gpu_stacks) return RowCalibration::uncalibrated;
  std::string row_stack(stack);
  if (row_stack.empty())
    if (const auto it = row.find(std::string_view("axis:plan.stack"));
        it != row.end() && std::holds_alternative<std::string>(it->second))
      row_stack = std::get<std::string>(it->second);
  // No stack label: every row shares the scenario's stack (a listed type is uncalibrated on it), unless an axis
  // over the whole plan map varies it (then say uncalibrated, the safe side).
  if (row_stack.empty()) return RowCalibration::uncalibrated;
  return listed(*info.uncalibrated_gpu_stacks, gpu_stack_key(gpu, row_stack)) ? RowCalibration::uncalibrated
                                                                               : RowCalibration::calibrated;
}

}  // namespace shardmeter::results
