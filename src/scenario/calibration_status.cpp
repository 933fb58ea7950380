#include "src/scenario/calibration_status.hpp"

#include <algorithm>

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

CalibrationStatus calibration_of(const Catalog& catalog, std::string_view gpu) {
  const auto it = catalog.gpus.find(std::string(gpu));
  if (it == catalog.gpus.end()) return CalibrationStatus::uncalibrated;
  return parse_calibration_status(it->second.calibration).value_or(CalibrationStatus::uncalibrated);
}

std::string describe_calibration(const Catalog& catalog, std::string_view gpu) {
  switch (calibration_of(catalog, gpu)) {
    case CalibrationStatus::fitted: return "fitted to published runs";
    case CalibrationStatus::family:
      return "fitted to published runs of its family (" + catalog.gpus.at(std::string(gpu)).family + ")";
    case CalibrationStatus::uncalibrated: break;
  }
  return "UNCALIBRATED: no published run fits its efficiency constants; figures are extrapolated";
}

std::vector<std::string> uncalibrated_among(const Catalog& catalog, std::span<const std::string> gpus) {
  std::vector<std::string> out;
  for (const std::string& g : gpus)
    if (calibration_of(catalog, g) == CalibrationStatus::uncalibrated) out.push_back(g);
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
  return uncalibrated_among(catalog, gpu_types_of(scenario));
}

}  // namespace shardmeter::cli
