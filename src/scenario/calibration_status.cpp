#include "src/scenario/calibration_status.hpp"

#include <algorithm>

#include "src/scenario/enum_names.hpp"

namespace shardmeter::cli {

std::optional<CalibrationStatus> parse_calibration_status(std::string_view text) {
  if (text == "fitted") return CalibrationStatus::fitted;
  if (text == "family") return CalibrationStatus::family;
  if (text == "uncalibrated") return CalibrationStatus::uncalibrated;
  return std::nullopt;
}

std::string_view calibration_name(CalibrationStatus status) {
  switch (status) {
    case CalibrationStatus::fitted: return "fitted";
    case CalibrationStatus::family: return "family";
    case CalibrationStatus::uncalibrated: break;
  }
  return "uncalibrated";
}

namespace {

const GpuEntry* entry_of(const Catalog& catalog, std::string_view gpu) {
  const auto it = catalog.gpus.find(std::string(gpu));
  return it == catalog.gpus.end() ? nullptr : &it->second;
}

CalibrationStatus status_of(const GpuEntry& e) {
  return parse_calibration_status(e.calibration).value_or(CalibrationStatus::uncalibrated);
}

bool covers(const GpuEntry& e, model::Stack stack) {
  return e.calibration_stacks.empty() ||
         std::find(e.calibration_stacks.begin(), e.calibration_stacks.end(), stack) != e.calibration_stacks.end();
}

// "megatron_te" or "megatron, megatron_te".
std::string stack_list(const GpuEntry& e) {
  std::string out;
  for (const model::Stack s : e.calibration_stacks) out += (out.empty() ? "" : ", ") + std::string(model::enum_name(s));
  return out;
}

}  // namespace

CalibrationStatus calibration_of(const Catalog& catalog, std::string_view gpu, model::Stack stack) {
  const GpuEntry* e = entry_of(catalog, gpu);
  if (e == nullptr || !covers(*e, stack)) return CalibrationStatus::uncalibrated;
  return status_of(*e);
}

std::string describe_calibration(const Catalog& catalog, std::string_view gpu, model::Stack stack) {
  const GpuEntry* e = entry_of(catalog, gpu);
  const std::string only = e != nullptr && !e->calibration_stacks.empty() ? " (" + stack_list(*e) + " only)" : "";
  switch (calibration_of(catalog, gpu, stack)) {
    case CalibrationStatus::fitted: return "fitted to published runs" + only;
    case CalibrationStatus::family: return "fitted to published runs of its family (" + e->family + ")" + only;
    case CalibrationStatus::uncalibrated: break;
  }
  if (e != nullptr && status_of(*e) != CalibrationStatus::uncalibrated)
    return "UNCALIBRATED on " + std::string(model::enum_name(stack)) + ": its constants are fitted for " +
           stack_list(*e) + " only; on this stack figures are extrapolated";
  return "UNCALIBRATED: no published run fits its efficiency constants; figures are extrapolated";
}

std::string calibration_coverage(const Catalog& catalog, std::string_view gpu) {
  const GpuEntry* e = entry_of(catalog, gpu);
  if (e == nullptr) return "uncalibrated";
  const std::string status(calibration_name(status_of(*e)));
  if (e->calibration_stacks.empty() || status_of(*e) == CalibrationStatus::uncalibrated) return status;
  return status + ": " + stack_list(*e) + " only";
}

std::vector<std::string> uncalibrated_among(const Catalog& catalog, std::span<const std::string> gpus,
                                            model::Stack stack) {
  std::vector<std::string> out;
  for (const std::string& g : gpus)
    if (calibration_of(catalog, g, stack) == CalibrationStatus::uncalibrated) out.push_back(g);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> gpu_types_of(const model::Scenario& scenario) {
  std::vector<std::string> gpus;
  for (int i = 0; i < scenario.cluster.island_entries; ++i) {
    const std::string name(scenario.cluster.islands[static_cast<std::size_t>(i)].gpu.name.view());
    if (std::find(gpus.begin(), gpus.end(), name) == gpus.end()) gpus.push_back(name);
  }
  return gpus;
}

std::vector<std::string> uncalibrated_in(const Catalog& catalog, const model::Scenario& scenario) {
  return uncalibrated_among(catalog, gpu_types_of(scenario), scenario.plan.stack);
}

}  // namespace shardmeter::cli
