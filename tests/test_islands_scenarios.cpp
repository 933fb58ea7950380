// The scenarios shipped for the islands issue load, evaluate feasibly and run through `sweep` and `thresholds`;
// `estimate --json` carries the islands fields (docs/islands.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "model/job/evaluate.hpp"
#include "catalog_fixture.hpp"
#include "run_shardmeter.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/scenario/version.hpp"

using namespace shardmeter;
using shardmeter::testing::run_shardmeter;

namespace {

std::string shipped(const std::string& name) { return SHARDMETER_SOURCE_DIR "/scenarios/" + name + ".yaml"; }

}  // namespace

TEST_CASE("shipped islands scenarios load, evaluate feasibly and run through sweep and thresholds") {
  const struct {
    const char* name;
    const char* axis;
  } cases[] = {
      {"diloco-intellect1", "cluster.wan.bandwidth_gbps=[0.5,3.5]"},
      {"hetero-70b-two-regions", "plan.sync=[synchronous,diloco]"},
      {"fsdp-thresholds-a100", "cluster.islands.0.node_network_gbps=100:3200:x2"},
      {"fsdp-thresholds-h100", "cluster.islands.0.node_network_gbps=100:3200:x2"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const cli::LoadedScenario loaded = cli::load_scenario(shipped(c.name), {}, test::shipped_catalog());
    const model::Estimate e = model::evaluate(loaded.scenario);
    CHECK(e.feasible);
    CHECK(e.tokens_per_s > 0);
    const auto sweep = run_shardmeter("sweep '" + shipped(c.name) + "' --axis '" + c.axis + "' --json");
    CHECK(sweep.status == 0);
    CHECK(nlohmann::json::parse(sweep.out).at("points").size() >= 2);
    CHECK(run_shardmeter("thresholds '" + shipped(c.name) + "'").status == 0);
  }
}

TEST_CASE("INTELLECT-1: predicted compute utilisation inside the published 83-96 %, syncs of 1-7 minutes") {
  const cli::LoadedScenario global = cli::load_scenario(shipped("diloco-intellect1"), {}, test::shipped_catalog());
  const model::Estimate e = model::evaluate(global.scenario);
  CHECK(e.compute_utilization >= 0.83);
  CHECK(e.compute_utilization <= 0.96);
  CHECK(e.wan_reduction_vs_sync == Approx(400));  // H = 100 x 32 / 8 bits: the published 400x
  // int8 pseudo-gradients of 10.2 B parameters, ring over 14 nodes: 2 x 13 x P bytes on the WAN per outer step.
  CHECK(e.wan_bytes_per_outer_step == Approx(26 * 10.21e9).epsilon(0.01));
  const double sync_min = e.time.wan_s * 100 / 60;  // exposed sync per outer step
  CHECK(sync_min >= 1.0);
  CHECK(sync_min <= 7.5);
  // The US-only phase: 2.45 Gbit/s effective, the 1-minute syncs.
  const cli::LoadedScenario us =
      cli::load_scenario(shipped("diloco-intellect1"), {cli::parse_override("cluster.wan.bandwidth_gbps=3.5")}, test::shipped_catalog());
  const model::Estimate u = model::evaluate(us.scenario);
  CHECK(u.compute_utilization > e.compute_utilization);
  CHECK(u.time.wan_s * 100 / 60 == Approx(1.0).margin(0.15));
}

TEST_CASE("hetero 70B: DiLoCo beats the synchronous balanced split on throughput and cost, egress included") {
  const cli::LoadedScenario sync = cli::load_scenario(shipped("hetero-70b-two-regions"), {}, test::shipped_catalog());
  const cli::LoadedScenario diloco =
      cli::load_scenario(shipped("hetero-70b-two-regions"), {cli::parse_override("plan.sync=diloco")}, test::shipped_catalog());
  const model::Estimate s = model::evaluate(sync.scenario), d = model::evaluate(diloco.scenario);
  REQUIRE(s.feasible);
  REQUIRE(d.feasible);
  // Balanced split: the H100 island takes the larger share of the batch.
  CHECK(s.islands[0].batch_share > s.islands[1].batch_share);
  CHECK(s.egress_usd_total > 0);
  CHECK(s.total_cost_usd == Approx(s.gpu_usd_total + s.egress_usd_total));
  CHECK(d.total_cost_usd == Approx(d.gpu_usd_total + d.egress_usd_total));
  // bf16 gradients every step vs bf16 pseudo-gradients every 100 steps: 100x fewer WAN bytes.
  CHECK(s.wan_bytes_per_step / d.wan_bytes_per_step == Approx(100));
  CHECK(d.tokens_per_s > s.tokens_per_s);
  CHECK(d.total_cost_usd < s.total_cost_usd);
}

TEST_CASE("estimate --json carries the islands fields with consistent values") {
  const auto r = run_shardmeter("estimate '" + shipped("diloco-intellect1") + "' --json");
  REQUIRE(r.status == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* key : {"effective_tokens_per_s", "compute_utilization", "wan_gb_per_step", "wan_gb_per_outer_step",
                          "wan_reduction_vs_sync", "gpu_usd_total", "egress_usd_total", "goodput", "total_cost_usd",
                          "checkpoint_interval_s"}) {
    INFO(key);
    REQUIRE(j.at(key).is_number());
    CHECK(j.at(key).get<double>() > 0);
  }
  CHECK(j["effective_tokens_per_s"].get<double>() <= j["tokens_per_s"].get<double>());
  CHECK(j["compute_utilization"].get<double>() <= 1.0);
  CHECK(j["goodput"].get<double>() <= 1.0);
  CHECK(j["wan_gb_per_step"].get<double>() * 100 == Approx(j["wan_gb_per_outer_step"].get<double>()));
  CHECK(j["gpu_usd_total"].get<double>() + j["egress_usd_total"].get<double>() ==
        Approx(j["total_cost_usd"].get<double>()));
  REQUIRE(j.at("islands").size() == 3);
  for (const nlohmann::json& island : j["islands"]) {
    CHECK(island.at("utilization").get<double>() > 0);
    CHECK(island.at("utilization").get<double>() <= 1);
    CHECK(island.at("bottleneck").is_string());
    CHECK(island.at("tokens_per_s").get<double>() > 0);
  }
}

TEST_CASE("batch_share is the share of one island of an entry, as documented (regression)") {
  // estimate.hpp: "fraction of the global batch one island of this entry processes"; it used to be the whole
  // entry's share (x count), unlike tokens_per_s next to it, which is one island's.
  const cli::LoadedScenario loaded = cli::load_scenario(shipped("diloco-intellect1"), {}, test::shipped_catalog());
  const model::Estimate e = model::evaluate(loaded.scenario);
  double sum = 0;
  for (int i = 0; i < e.island_entries; ++i) {
    const auto k = static_cast<std::size_t>(i);
    CHECK(e.islands[k].batch_share == Approx(1.0 / 14));  // 14 DiLoCo workers, equal shares
    sum += e.islands[k].batch_share * loaded.scenario.cluster.islands[k].count;
  }
  CHECK(sum == Approx(1.0));
  // One island's tokens/s is its share of the job's trained tokens (all islands run the same inner steps).
  CHECK(e.islands[0].tokens_per_s == Approx(e.tokens_per_s * e.islands[0].batch_share));
}

TEST_CASE("egress counts the outer syncs that actually happen when fast islands run extra inner steps (regression)") {
  // hetero-70b-two-regions as DiLoCo: the H100 region runs more than H inner steps per outer step, so the token
  // budget takes fewer outer syncs than tokens / (H x global batch) - egress used to count the latter.
  const cli::LoadedScenario loaded =
      cli::load_scenario(shipped("hetero-70b-two-regions"), {cli::parse_override("plan.sync=diloco")}, test::shipped_catalog());
  const model::Scenario& s = loaded.scenario;
  const model::Estimate e = model::evaluate(s);
  REQUIRE(s.plan.diloco.fast_islands == model::DilocoFastIslands::more_steps);
  const double period_s = e.step_time_s * s.plan.diloco.inner_steps;
  // The budget is loss-equivalent: DiLoCo trains tokens / token_efficiency (docs/model.md §10.3).
  const double trained = s.training.tokens / e.token_efficiency;
  const double syncs = trained / e.tokens_per_s / period_s;
  CHECK(syncs < trained / (s.plan.diloco.inner_steps * e.tokens_per_step));
  // Each sync: a ring over 2 regions puts 2 x (2 - 1) x P x 2 bytes (bf16) on the WAN, at $0.02/GB.
  const double params = e.wan_bytes_per_outer_step / 4;
  CHECK(e.egress_usd_total == Approx(syncs * 4 * params * 0.02 / 1e9));
  // Synchronous jobs are unchanged: one all-reduce per step of global batch x seq tokens.
  const model::Estimate sync = model::evaluate(
      cli::load_scenario(shipped("hetero-70b-two-regions"), {}, test::shipped_catalog()).scenario);
  CHECK(sync.egress_usd_total ==
        Approx(s.training.tokens / sync.tokens_per_step * sync.wan_bytes_per_step * 0.02 / 1e9));
}

TEST_CASE("issue 11: warnings, the effective-token cost and the WAN table reach the JSON and the text") {
  // INTELLECT-1: 14 replicas are beyond the convergence model's data (M <= 8): warned in both outputs.
  const auto json = run_shardmeter("estimate '" + shipped("diloco-intellect1") + "' --json");
  REQUIRE(json.status == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0]["name"] == "diloco_replicas_beyond_data");
  // Loss-equivalent budget: trained tokens = tokens / token_efficiency; the effective-token cost is total / budget.
  CHECK(j["trained_tokens"].get<double>() == Approx(1e12 / j["token_efficiency"].get<double>()));
  CHECK(j["cost_usd_per_effective_million_tokens"].get<double>() == Approx(j["total_cost_usd"].get<double>() / 1e6));
  CHECK(j["goodput_parts"]["per_island"] == true);
  const auto text = run_shardmeter("estimate '" + shipped("diloco-intellect1") + "'");
  CHECK_THAT(text.out, Catch::Contains("Warning: DiLoCo token efficiency extrapolated beyond 8 replicas") &&
                           Catch::Contains("per million effective tokens"));
  // thresholds --json: the three methods, five targets each, rising with the target; and the plan's peak need.
  const auto t = run_shardmeter("thresholds '" + shipped("diloco-multiregion") + "' --json");
  REQUIRE(t.status == 0);
  const nlohmann::json w = nlohmann::json::parse(t.out);
  REQUIRE(w["wan_thresholds"]["methods"].size() == 3);
  CHECK(w["wan_thresholds"]["methods"][0]["method"] == "sync_dp");
  for (const auto& m : w["wan_thresholds"]["methods"]) {
    REQUIRE(m["gbps"].size() == 5);
    for (std::size_t k = 1; k < 5; ++k) CHECK(m["gbps"][k].get<double>() >= m["gbps"][k - 1].get<double>());
  }
  CHECK(w["wan_peak_gbps"].get<double>() > 0);
  // One island: no WAN table.
  CHECK(nlohmann::json::parse(run_shardmeter("thresholds '" + shipped("default") + "' --json").out)["wan_thresholds"]
            .is_null());
}
