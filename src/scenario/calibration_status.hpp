#pragma once
// How far a GPU type's efficiency constants can be trusted on a software stack: the catalog's `calibration:` key,
// limited to the stacks of `calibration_stacks:` when the entry gives it (scenarios/gpus.yaml, docs/accuracy.md).
// estimate, search (its table and the result files' uncalibrated_gpus / uncalibrated_gpu_stacks attributes), report,
// export and `list gpus` all read it from here.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/spec/enums.hpp"
#include "model/spec/scenario.hpp"
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

// A GPU type on a stack: the catalog's `calibration`, or uncalibrated when the entry's `calibration_stacks` leaves
// `stack` out. A name the catalog does not hold (an inline `gpu:` map) is uncalibrated.
CalibrationStatus calibration_of(const Catalog& catalog, std::string_view gpu, model::Stack stack);
// One phrase for users: "fitted to published runs", "fitted to published runs (megatron_te only)",
// "fitted to published runs of its family (h100)", "UNCALIBRATED ...".
std::string describe_calibration(const Catalog& catalog, std::string_view gpu, model::Stack stack);
// `list gpus`: the status per stack in one word group: "fitted", "fitted: megatron_te only", "uncalibrated".
std::string calibration_coverage(const Catalog& catalog, std::string_view gpu);

// The names in `gpus` that are uncalibrated on `stack`, sorted, each once.
std::vector<std::string> uncalibrated_among(const Catalog& catalog, std::span<const std::string> gpus,
                                            model::Stack stack);
// The GPU types of a scenario's island entries, each once, in island order.
std::vector<std::string> gpu_types_of(const model::Scenario& scenario);
// The GPU types of a scenario's island entries that are uncalibrated on its plan.stack (estimate --json's
// `uncalibrated_gpus`).
std::vector<std::string> uncalibrated_in(const Catalog& catalog, const model::Scenario& scenario);

}  // namespace shardmeter::cli
