// evaluate_into / evaluate_consistent_into reuse one Estimate: a consistent scenario overwrites every field, only the
// island slots the previous estimate used beyond the new one are reset, and a rejected scenario resets the rest
// (model/job/evaluate.cpp). Each estimate made over whatever the previous one left must equal a fresh model::evaluate,
// field by field and bit for bit; a field the model forgot to write would keep the previous scenario's value.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "model/parallel/consistency.hpp"
#include "model/job/evaluate.hpp"
#include "same_estimate.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/validation/validation.hpp"

using namespace shardmeter;

namespace {

// Every row of the validation tables and every shipped scenario (single and multi-island, DiLoCo, MoE, MLA, fp8,
// feasible and out of memory), plus rejected variants.
std::vector<model::Scenario> varied_scenarios() {
  std::vector<model::Scenario> out;
  for (const char* csv : {"/scenarios/validation/published_runs.csv", "/scenarios/validation/heldout_runs.csv"})
    for (const cli::ValidationRun& r :
         cli::load_validation_runs(std::string(SHARDMETER_SOURCE_DIR) + csv, test::shipped_catalog()))
      out.push_back(r.scenario);
  for (const auto& entry : std::filesystem::directory_iterator(SHARDMETER_SOURCE_DIR "/scenarios")) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || name == "gpus.yaml" || name == "links.yaml") continue;
    out.push_back(cli::load_scenario(entry.path().string(), {}, test::shipped_catalog()).scenario);
  }
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n; i += 7) {
    model::Scenario rejected = out[i];
    rejected.plan.tp = 3;   // divides no head count of the shipped models
    out.push_back(rejected);
    model::Scenario oom = out[i];
    oom.cluster.islands[0].gpu.hbm_bytes = 1e9;
    out.push_back(oom);
  }
  return out;
}

}  // namespace

TEST_CASE("A reused estimate equals a fresh one whatever the previous scenario left in it") {
  const std::vector<model::Scenario> scenarios = varied_scenarios();
  REQUIRE(scenarios.size() > 100);
  std::vector<model::Estimate> fresh;
  int rejected = 0, infeasible = 0, multi_island = 0;
  for (const model::Scenario& s : scenarios) {
    fresh.push_back(model::evaluate(s));
    rejected += fresh.back().reject_reason != model::RejectReason::none &&
                fresh.back().reject_reason != model::RejectReason::out_of_memory;
    infeasible += fresh.back().reject_reason == model::RejectReason::out_of_memory;
    multi_island += s.cluster.island_entries > 1 || s.cluster.total_islands() > 1;
  }
  CHECK(rejected > 5);
  CHECK(infeasible > 5);
  CHECK(multi_island > 3);
  // Forward, backward and in a stride that pairs distant rows, all into one Estimate each.
  const std::size_t n = scenarios.size();
  for (const std::size_t stride : {std::size_t{1}, n - 1, std::size_t{37}}) {
    model::Estimate into, consistent;
    for (std::size_t step = 0, i = 0; step < n; ++step, i = (i + stride) % n) {
      INFO("stride " << stride << ", scenario " << i);
      model::evaluate_into(scenarios[i], into);
      CHECK(test::same_estimate(into, fresh[i]));
      if (!model::check_consistency(scenarios[i])) {
        model::evaluate_consistent_into(scenarios[i], consistent);
        CHECK(test::same_estimate(consistent, fresh[i]));
      }
    }
  }
}
