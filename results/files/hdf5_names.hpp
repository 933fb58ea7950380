#pragma once
// Names in ShardMeter HDF5 result files. They are a contract with readers outside this code base (h5py scripts,
// notebooks, the nightly job): change them only with a new schema_version. Documented in results/README.md.
#include <cstdint>
#include <string_view>

namespace shardmeter::results::h5names {

inline constexpr std::int64_t kSchemaVersion = 3;         // what this version writes
inline constexpr std::int64_t kOldestSchemaVersion = 1;   // the oldest it reads
inline constexpr std::string_view kFormat = "shardmeter-front";   // value of the `format` root attribute

// Datasets.
inline constexpr std::string_view kFront = "front";   // the Pareto front, one row per point, in the given order
inline constexpr std::string_view kAll = "all";       // every feasible candidate (--all), chunked + deflate

// Root attributes.
inline constexpr std::string_view kFormatAttr = "format";
inline constexpr std::string_view kSchemaVersionAttr = "schema_version";
inline constexpr std::string_view kScenario = "scenario";
inline constexpr std::string_view kScenarioName = "scenario_name";
inline constexpr std::string_view kVersion = "version";
inline constexpr std::string_view kMethod = "method";
inline constexpr std::string_view kSeed = "seed";
inline constexpr std::string_view kThreads = "threads";
inline constexpr std::string_view kRanks = "ranks";         // absent before issue 13: read as 1
inline constexpr std::string_view kSpaceSize = "space_size";
inline constexpr std::string_view kVisited = "visited";       // candidates looked at (schema_version 1: "evaluated")
inline constexpr std::string_view kEstimated = "estimated";   // model::evaluate calls; absent when unknown (schema 1)
inline constexpr std::string_view kVisitedV1 = "evaluated";
inline constexpr std::string_view kFeasible = "feasible";
inline constexpr std::string_view kElapsed = "elapsed_s";
inline constexpr std::string_view kComplete = "complete";
inline constexpr std::string_view kObjectives = "objectives";
inline constexpr std::string_view kObjectiveDirections = "objective_directions";
inline constexpr std::string_view kAxes = "axes";
inline constexpr std::string_view kCreated = "created";
inline constexpr std::string_view kUncalibratedGpus = "uncalibrated_gpus";   // schema_version 3
inline constexpr std::string_view kUncalibratedGpuStacks = "uncalibrated_gpu_stacks";   // "gpu:stack" pairs; added in 3
inline constexpr std::string_view kCountsEstimated = "counts_estimated";   // present (true) only when estimates
inline constexpr std::string_view kStackSource = "stack_source";   // given | implied | framework | searched
inline constexpr std::string_view kRejectedPrefix = "rejected_";   // rejected_<reason> = count

// Dataset attributes (on /front and /all).
inline constexpr std::string_view kUnits = "units";           // one unit text per column, "" when unitless

}  // namespace shardmeter::results::h5names
