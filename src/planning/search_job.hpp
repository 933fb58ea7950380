#pragma once
// One search as a job: load the scenario and its `search:` section, build the space, run the engine, write the
// requested files (HDF5 front, CSV, JSON) atomically. `shardmeter search` and `shardmeter nightly` both call it.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "results/front/plan_point.hpp"
#include "results/front/run_info.hpp"
#include "search/options.hpp"
#include "search/result.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace shardmeter::cli {

// How a job takes part in a search shared by several processes (src/distributed/). The defaults: one process.
struct JobTeam {
  bool writes_files = true;   // false on every MPI rank but 0: it searches and hands its results to rank 0
  // Every process, before the search: adjusts the engine options the job built (work source, seed; the --all
  // sink, which the job sets only where files are written).
  std::function<void(const search::Space&, search::SearchOptions&)> before_search;
  // Every process, after the search and before any file is written: joins the other processes' results into
  // this one's (rank 0), or hands this one's to rank 0 (the others).
  std::function<void(const search::Space&, const search::Goal&, const search::SearchOptions&, search::SearchResult&)>
      after_search;
};

struct SearchJobOptions {
  std::string scenario_path;           // the scenario file, or only the label of scenario_text in error locations
  std::string scenario_text;           // "" = read scenario_path; else the scenario's YAML (the Python module)
  std::vector<Override> overrides;      // --set, applied before the search section is read
  std::string output_h5;                // "" = no HDF5 file
  std::string output_csv;               // "" = none
  std::string output_json;              // "" = none
  search::Method method = search::Method::automatic;
  int threads = 0;                      // 0 = all hardware threads
  std::uint64_t seed = 0;
  std::uint64_t visit_budget = 200'000; // anneal budget: candidates to visit (--evaluations)
  double time_limit_s = 0;              // 0 = none
  bool write_all = false;               // --all: every feasible candidate into /all
  bool bound_prune = true;              // search::SearchOptions::bound_prune (tests compare with it off)
  search::ProgressFn progress;          // called while the search runs (the caller draws a bar, or nothing)
  std::function<void()> search_done;    // called once the search has ended, before files are written
  std::string created;                  // ISO 8601 timestamp for the provenance
  JobTeam team;                         // a distributed run's hooks (default: this process alone)
  // --framework: keep only plans this framework's export expresses, on its stack (overrides search.framework;
  // results/export/framework.hpp, docs/search.md "Searching for a framework"). "" = the section's, if any.
  std::string framework;
};

struct SearchJobResult {
  LoadedScenario scenario;              // the base scenario (as loaded, before any axis)
  search::SearchResult result;
  results::RunInfo info;                // what was written as provenance
  std::vector<results::PlanPoint> front;  // result.front as written to the files: cheapest first
  // The table's legend of uncalibrated GPU types: "mi325x" (uncalibrated on every stack), "b200 on torch_fsdp2"
  // (fitted for other stacks only), sorted.
  std::vector<std::string> uncalibrated_legend;
  // With a framework: its name, the feasible candidates its export expresses, and those it cannot, counted by
  // reason (most first). The front is then the Pareto front of the kept candidates.
  std::string framework;
  std::uint64_t framework_kept = 0;
  std::vector<std::pair<std::string, std::uint64_t>> framework_excluded;
};

// Throws ScenarioError (bad scenario or search section), results::OutputError (cannot write) — nothing is left
// half-written. `stop` (Ctrl-C) ends the search early; the front found so far is written with complete = false.
SearchJobResult run_search_job(const SearchJobOptions& options, const Catalog& catalog, std::atomic<bool>& stop);

}  // namespace shardmeter::cli
