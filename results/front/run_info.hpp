#pragma once
// Provenance of one search run; stored as root attributes of the HDF5 file and as `run` in JSON (results/README.md).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/spec/objective.hpp"

namespace shardmeter::results {

struct RunInfo {
  std::string scenario_text;                // the scenario file as read (with --set overrides applied by the loader)
  std::string scenario_name;
  std::string version;                      // ShardMeter version
  std::string method;                       // "exhaustive", "anneal"
  std::uint64_t seed = 0;
  std::int64_t threads = 0;                 // threads per process
  std::int64_t ranks = 1;                   // MPI processes that shared the search (1 without MPI)
  std::uint64_t space_size = 0;             // candidates in the search space
  std::uint64_t visited = 0;                // candidates looked at (rejected ones included)
  std::optional<std::uint64_t> estimated;   // model::evaluate calls; nullopt when unknown (schema_version 1 files)
  std::uint64_t feasible = 0;
  std::map<std::string, std::uint64_t> rejected;  // reason name (model::reason_name or a constraint) -> count
  double elapsed_s = 0;
  bool complete = true;                     // false when the search was interrupted or hit a budget
  std::vector<model::Objective> objectives; // e.g. {total_cost_usd, min}, {tokens_per_s, max}
  std::vector<std::string> axes;            // dotted paths of the search axes ("plan.tp", "cluster.islands.0.gpu")
  std::string created;                      // ISO 8601 timestamp, supplied by the caller (never read from the clock here)
  // GPU types of the front's rows whose efficiency constants were not fitted to a published run on the stack of at
  // least one row that uses them (catalog `calibration: uncalibrated`, a stack outside `calibration_stacks`, or an
  // inline GPU); nullopt when unknown (files before schema_version 3).
  std::optional<std::vector<std::string>> uncalibrated_gpus;
  // The same per (GPU type, stack) of the front's rows, "b200:torch_fsdp2" (results/front/calibration_marks.hpp);
  // nullopt in files written before the status depended on the stack (then uncalibrated_gpus marks every row).
  std::optional<std::vector<std::string>> uncalibrated_gpu_stacks;
  // Where the candidates' plan.stack came from: "given" (the scenario sets it), "implied" (the stack rule chose it
  // from the base plan's sharding and every candidate keeps it), "framework" (--framework / search.framework fixed
  // it) or "searched" (a search axis varies it); "" in files written before it was recorded.
  std::string stack_source;
  // True when visited, estimated, feasible and rejected are estimates of distinct candidates (an annealing search
  // past its exact-count limit, search/distinct_tally.hpp); the attribute is written only then.
  bool counts_estimated = false;

  friend bool operator==(const RunInfo&, const RunInfo&) = default;
};

}  // namespace shardmeter::results
