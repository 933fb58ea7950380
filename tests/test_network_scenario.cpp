// `shardmeter calibrate-network` end to end, and an island naming its profile (docs/network.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog_fixture.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/job/evaluate.hpp"
#include "run_shardmeter.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter;
using shardmeter::testing::run_shardmeter;

namespace {

const std::string kLogs = SHARDMETER_TEST_DATA_DIR "/nccl/";

std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("shardmeter_network_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// Llama-3-70B on 64 nodes of H100, TP 8 x PP 4, with the profile `profile` next to the scenario file (line 8).
std::string scenario_text(const std::string& profile) {
  return "name: netplan\n"
         "model: {preset: llama3-70b}\n"
         "training: {global_batch: 512, micro_batch: 1}\n"
         "cluster:\n"
         "  islands:\n"
         "    - gpu: h100-sxm\n"
         "      nodes: 64\n"
         "      network_profile: " + profile + "\n"
         "plan: {tp: 8, pp: 4, sharding: zero1}\n";
}

}  // namespace

TEST_CASE("calibrate-network writes a profile an island then follows") {
  const std::filesystem::path dir = scratch("ok");
  std::string logs;
  for (const char* op : {"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf"})
    for (int n : {1, 4, 16, 64}) logs += " " + kLogs + op + "_" + std::to_string(n) + "n.log";
  const auto r = run_shardmeter("calibrate-network" + logs + " -o " + (dir / "net.yaml").string());
  REQUIRE(r.status == 0);
  CHECK(r.out.find("all_gather over 64 x 8 GPUs, 9 sizes") != std::string::npos);
  REQUIRE(std::filesystem::exists(dir / "net.yaml"));

  write(dir / "plan.yaml", scenario_text("net.yaml"));
  const cli::LoadedScenario measured = cli::load_scenario((dir / "plan.yaml").string(), {}, test::shipped_catalog());
  REQUIRE(measured.scenario.cluster.islands[0].network_profile != nullptr);
  const model::Estimate e = model::evaluate(measured.scenario);
  CHECK(e.islands[0].collectives.tp == model::CollectiveAlgorithm::measured);
  CHECK(e.islands[0].collectives.dp == model::CollectiveAlgorithm::measured);
  // Measured on 1-64 nodes: nothing is extrapolated.
  CHECK((e.warnings & model::bit(model::Warning::network_profile_extrapolated)) == 0);

  // The same plan on the modelled network prices its collectives otherwise.
  write(dir / "modelled.yaml", scenario_text("net.yaml").substr(0, scenario_text("net.yaml").find("      network_profile")) +
                                   "plan: {tp: 8, pp: 4, sharding: zero1}\n");
  const cli::LoadedScenario modelled = cli::load_scenario((dir / "modelled.yaml").string(), {}, test::shipped_catalog());
  CHECK(modelled.scenario.cluster.islands[0].network_profile == nullptr);
  CHECK(model::evaluate(modelled.scenario).step_time_s != Approx(e.step_time_s));
  std::filesystem::remove_all(dir);
}

TEST_CASE("A profile measured on fewer nodes than a group spans warns of extrapolation") {
  const std::filesystem::path dir = scratch("extrapolated");
  const auto r = run_shardmeter("calibrate-network " + kLogs + "all_gather_perf_1n.log " + kLogs +
                                "all_gather_perf_4n.log -o " + (dir / "small.yaml").string());
  REQUIRE(r.status == 0);
  write(dir / "plan.yaml", scenario_text("small.yaml"));
  const cli::LoadedScenario loaded = cli::load_scenario((dir / "plan.yaml").string(), {}, test::shipped_catalog());
  const model::Estimate e = model::evaluate(loaded.scenario);
  CHECK((e.warnings & model::bit(model::Warning::network_profile_extrapolated)) != 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate-network refuses a bad log with file:line, exit 2 and no profile") {
  const std::filesystem::path dir = scratch("bad");
  std::ifstream in(kLogs + "all_reduce_perf_4n.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto row = text.find("     4194304");
  REQUIRE(row != std::string::npos);
  text.replace(text.find("      0", row), 7, "      5");  // a #wrong count
  write(dir / "all_reduce_perf_4n.log", text);
  const auto r = run_shardmeter("calibrate-network " + (dir / "all_reduce_perf_4n.log").string() + " " + kLogs +
                                "all_gather_perf_1n.log -o " + (dir / "net.yaml").string());
  CHECK(r.status == 2);
  CHECK(r.err.find((dir / "all_reduce_perf_4n.log").string() + ":") == 0);
  CHECK(r.err.find("#wrong = 5") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "net.yaml"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("An island's network_profile that is not a profile is a located scenario error") {
  const std::filesystem::path dir = scratch("badprofile");
  write(dir / "net.yaml", "gpus_per_node: 8\nruns:\n  - op: all_gather\n    nodes: 2\n    points:\n      - [1024, fast]\n");
  write(dir / "plan.yaml", scenario_text("net.yaml"));
  try {
    cli::load_scenario((dir / "plan.yaml").string(), {}, test::shipped_catalog());
    FAIL("accepted");
  } catch (const cli::ScenarioError& e) {
    const std::string what = e.what();
    CHECK(what.find("plan.yaml:8:") != std::string::npos);
    CHECK(what.find("network_profile") != std::string::npos);
    CHECK(what.find("net.yaml:6: busbw = fast is not a number") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
