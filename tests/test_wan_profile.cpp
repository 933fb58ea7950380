// A measured WAN link: network_profile on cluster.wan / cluster.links[N] (docs/model.md §8.7).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog_fixture.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/job/evaluate.hpp"
#include "model/comm/network_profile.hpp"
#include "model/comm/wan.hpp"
#include "run_shardmeter.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter;
using namespace shardmeter::model;

namespace {

// All-reduce measured across 2 and 4 sites (one GPU each) at 1e8 and 1e10 bytes.
NetworkProfile wan_profile() {
  NetworkProfile p;
  p.gpus_per_node = 1;
  ProfileOp& ar = p.ops[static_cast<std::size_t>(NetworkOp::all_reduce)];
  ar.runs = 2;
  ar.curves[0].nodes = 2;
  ar.curves[0].points = 2;
  ar.curves[0].bytes = {1e8, 1e10};
  ar.curves[0].busbw_bytes_per_s = {1e9, 4e9};
  ar.curves[1].nodes = 4;
  ar.curves[1].points = 2;
  ar.curves[1].bytes = {1e8, 1e10};
  ar.curves[1].busbw_bytes_per_s = {0.5e9, 2e9};
  return p;
}

// `islands` entries of one island each, joined by a 100 Gbit/s, 10 ms default link.
ClusterSpec cluster_of(int islands) {
  ClusterSpec c;
  c.island_entries = islands;
  c.has_wan = true;
  c.wan.bytes_per_s = 12.5e9;   // x 0.7 efficiency = 8.75e9 achievable
  c.wan.latency_s = 0.01;
  return c;
}

}  // namespace

TEST_CASE("A WAN link with a profile prices the islands' all-reduce by the measured curve") {
  const NetworkProfile p = wan_profile();
  ClusterSpec c = cluster_of(3);
  const double modelled = wan_all_reduce_s(1e9, wan_ring(c));
  // Modelled: 2 x 2/3 x 1e9 / 8.75e9 + 4 x 10 ms = 0.152381 + 0.04 = 0.192381 s.
  CHECK(modelled == Approx(0.192381).epsilon(1e-5));
  c.wan.profile = &p;
  const WanRing ring = wan_ring(c);
  // 1e9 is the log midpoint of 1e8 and 1e10: on 2 sites sqrt(1e9 x 4e9) = 2e9, on 4 sites sqrt(0.5e9 x 2e9) = 1e9.
  // 3 islands, log-log between 2 and 4: 2e9 x (1e9 / 2e9)^(log 1.5 / log 2) = 2e9 / 1.5 = 1.33333e9.
  // n = 3 islands x 1 GPU: factor 2 x 2/3 = 4/3; time = 1e9 x 4/3 / 1.33333e9 = 1.0 s.
  CHECK(wan_all_reduce_s(1e9, ring) == Approx(1.0));
  CHECK_FALSE(wan_profile_extrapolated(ring));
  // No sendrecv runs: the point-to-point keeps the link's figures, 10 ms + 1e8 / 8.75e9 = 21.4286 ms.
  CHECK(wan_p2p_s(1e8, ring) == Approx(0.0214286).epsilon(1e-5));
  // A slower unmeasured link between islands 0 and 1 (1 Gbit/s: 0.0875e9 achievable): the ring runs at it,
  // 4/3 x 1e9 / 0.0875e9 + 4 x 10 ms = 15.2381 + 0.04 = 15.2781 s.
  c.link_overrides = 1;
  c.links[0] = LinkOverride{0, 1, c.wan};
  c.links[0].link.profile = nullptr;
  c.links[0].link.bytes_per_s = 0.125e9;
  CHECK(wan_all_reduce_s(1e9, wan_ring(c)) == Approx(15.2781).epsilon(1e-5));
  // 5 islands: past the measured 4, the last slope extended and flagged.
  ClusterSpec five = cluster_of(5);
  five.wan.profile = &p;
  CHECK(wan_profile_extrapolated(wan_ring(five)));
}

TEST_CASE("cluster.wan network_profile: read from the scenario, it changes the WAN time; without all-reduce runs it is refused",
          "[e2e]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardmeter_wan_profile";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string logs = SHARDMETER_TEST_DATA_DIR "/nccl/";
  auto calibrate = [&](const std::string& files, const std::string& out) {
    return testing::run_shardmeter("calibrate-network " + files + " -o " + (dir / out).string()).status;
  };
  REQUIRE(calibrate(logs + "all_reduce_perf_1n.log " + logs + "all_reduce_perf_4n.log", "wan.yaml") == 0);
  REQUIRE(calibrate(logs + "all_gather_perf_1n.log", "gather_only.yaml") == 0);
  auto scenario = [](const std::string& wan_extra) {
    return "name: wanplan\n"
           "model: {preset: llama3-8b}\n"
           "training: {global_batch: 256, micro_batch: 1}\n"
           "cluster:\n"
           "  islands:\n"
           "    - {gpu: h100-sxm, nodes: 2, count: 2}\n"
           "  wan: {bandwidth_gbps: 100, latency_ms: 10" + wan_extra + "}\n"
           "plan: {tp: 8, sharding: zero1}\n";
  };
  auto load = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return cli::load_scenario((dir / name).string(), {}, test::shipped_catalog());
  };
  const cli::LoadedScenario plain = load("plain.yaml", scenario(""));
  const cli::LoadedScenario measured = load("measured.yaml", scenario(", network_profile: wan.yaml"));
  REQUIRE(measured.scenario.cluster.wan.profile != nullptr);
  const Estimate a = evaluate(plain.scenario);
  const Estimate b = evaluate(measured.scenario);
  REQUIRE(a.reject_reason == RejectReason::none);
  REQUIRE(b.reject_reason == RejectReason::none);
  CHECK(b.time.wan_s != Approx(a.time.wan_s));
  CHECK((b.warnings & bit(Warning::network_profile_extrapolated)) == 0);   // 2 islands, measured on 1 and 4
  // A profile with no all-reduce runs cannot price the ring: a located error naming the key.
  try {
    load("gather.yaml", scenario(", network_profile: gather_only.yaml"));
    FAIL("a WAN profile without all_reduce runs was accepted");
  } catch (const cli::ScenarioError& e) {
    const std::string what = e.what();
    CHECK(what.find("gather.yaml:7") != std::string::npos);
    CHECK(what.find("network_profile") != std::string::npos);
    CHECK(what.find("all_reduce") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
