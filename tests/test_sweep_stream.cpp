// A streamed sweep (src/sweep/sweep_stream.hpp) writes the same CSV, byte for byte, and the same analyses as the
// sweep held in memory, for every shape of series: one axis, two with the knee along the last axis, two with the
// knee along the first (its series run across the whole sweep), infeasible points, and a real crossing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <unistd.h>

#include "catalog_fixture.hpp"
#include "run_shardmeter.hpp"
#include "src/sweep/sweep.hpp"
#include "src/sweep/sweep_output.hpp"
#include "src/sweep/sweep_report.hpp"
#include "src/sweep/sweep_stream.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;
namespace fs = std::filesystem;
using shardmeter::testing::read_text;

namespace {

void check_same_as_held(const std::string& scenario, const std::vector<std::string>& axis_texts) {
  const LoadedScenario base = load_scenario(scenario, {}, test::shipped_catalog());
  std::vector<AxisSpec> axes;
  for (const std::string& t : axis_texts) axes.push_back(axis_from_text(t));
  const fs::path dir = fs::temp_directory_path() / ("shardmeter_sweep_stream_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);

  const Sweep held = run_sweep(base, test::shipped_catalog(), axes);
  write_sweep(held, (dir / "held.csv").string(), SweepProvenance{base.doc.text, {}, "", 0.0});
  const search::Space space = sweep_space(base, test::shipped_catalog(), axes);
  const StreamedSweep streamed = analyse_streamed_sweep(space, base.name, axes);
  write_streamed_sweep_csv(streamed, space, (dir / "streamed.csv").string());

  CHECK(read_text(dir / "streamed.csv") == read_text(dir / "held.csv"));
  CHECK(read_text(dir / "streamed.units.csv") == read_text(dir / "held.units.csv"));
  REQUIRE(streamed.knees.size() == held.knees.size());
  for (std::size_t k = 0; k < held.knees.size(); ++k) {
    CHECK(streamed.knees[k].fixed == held.knees[k].series.fixed);
    CHECK(streamed.knees[k].text == describe_knee(held, held.knees[k]));
  }
  REQUIRE(streamed.transitions.size() == held.transitions.size());
  for (std::size_t t = 0; t < held.transitions.size(); ++t) {
    CHECK(streamed.transitions[t].fixed == held.transitions[t].series.fixed);
    CHECK(streamed.transitions[t].text == describe_transition(held, held.transitions[t]));
  }
  // The printed analyses are the table's last lines.
  const std::string table = format_sweep_table(held);
  const std::string printed = format_streamed_sweep(streamed, "x.csv");
  const std::string analyses = printed.substr(printed.find("\n\n", printed.find("x.csv")) + 2);
  CHECK(table.substr(table.size() - analyses.size()) == analyses);
  CHECK(table.substr(0, table.find('\n', table.find('\n') + 1)) ==
        printed.substr(0, printed.find('\n', printed.find('\n') + 1)));
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE("a streamed sweep writes the held sweep's CSV and analyses, byte for byte", "[sweep]") {
  const std::string small = SHARDMETER_TEST_DATA_DIR "/small.yaml";
  SECTION("one island-size axis") { check_same_as_held(small, {"cluster.islands.0.gpus=16:256:x2"}); }
  SECTION("two axes, the knee along the last") {
    check_same_as_held(small, {"plan.tp=[1, 2, 3, 4]", "cluster.islands.0.gpus=[16, 32, 64, 128]"});
  }
  SECTION("two axes, the knee along the first: its series run across the sweep") {
    check_same_as_held(small, {"cluster.islands.0.gpus=[16, 32, 64, 128]", "plan.tp=[2, 3, 4, 8]"});
  }
  SECTION("a crossing of the 50 % communication share") {
    check_same_as_held(SHARDMETER_SOURCE_DIR "/scenarios/fsdp-thresholds-h100.yaml",
                       {"cluster.islands.0.node_network_gbps=100:3200:x2"});
  }
  SECTION("two goodput axes") {
    check_same_as_held(small, {"goodput.checkpoint_write_s=1:20", "goodput.restart_s=1:30:+7"});
  }
}
