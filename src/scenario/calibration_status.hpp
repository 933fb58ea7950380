#pragma once
// How far a GPU type's efficiency constants can be trusted: the catalog's `calibration:` key (scenarios/gpus.yaml,
// docs/accuracy.md). estimate, search (its table and the result files' uncalibrated_gpus attribute), report,
// export and `list gpus` all read it from here.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/scenario.hpp"
#include "src/scenario/catalog.hpp"

namespace shardmeter::cli {

enum class CalibrationStatus : std::uint8_t {
  fitted,        // fitted by `shardmeter calibrate` to published runs of this very type
  family,        // shares constants fitted to published runs of another type of its family
  uncalibrated,  // no published run: constants extrapolated (docs/model.md §11)
};

// "fitted" / "family" / "uncalibrated" -> status; nullopt for anything else.
std::optional<CalibrationStatus> parse_calibration_status(std::string_view text);
std::string_view calibration_name(CalibrationStatus status);
// One phrase for users: "fitted to published runs", "fitted to published runs of its family (h100)", "UNCALIBRATED ...".
std::string describe_calibration(const Catalog& catalog, std::string_view gpu);

// A GPU type by name; a name the catalog does not hold (an inline `gpu:` map) is uncalibrated.
CalibrationStatus calibration_of(const Catalog& catalog, std::string_view gpu);
// The names in `gpus` that are uncalibrated, sorted, each once.
std::vector<std::string> uncalibrated_among(const Catalog& catalog, std::span<const std::string> gpus);
// The GPU types of a scenario's island entries, each once, in island order.
std::vector<std::string> gpu_types_of(const model::Scenario& scenario);
// The uncalibrated GPU types of a scenario's island entries (estimate --json's `uncalibrated_gpus`).
std::vector<std::string> uncalibrated_in(const Catalog& catalog, const model::Scenario& scenario);

}  // namespace shardmeter::cli
