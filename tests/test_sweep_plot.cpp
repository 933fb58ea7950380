// `sweep --plot`: a well-formed standalone SVG with one marker per feasible point in each panel, the knee and the
// compute/communication transition drawn where the analyses put them, and no file on bad input.
#include <catch2/catch.hpp>

#include <filesystem>

#include "run_shardmeter.hpp"
#include "src/sweep/sweep.hpp"
#include "src/sweep/sweep_plot.hpp"
#include "src/scenario/version.hpp"
#include "catalog_fixture.hpp"
#include "xml_check.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;
using shardmeter::testing::run_shardmeter;
namespace fs = std::filesystem;

TEST_CASE("sweep plot: two panels, one marker per feasible point, knee and transition lines") {
  const Catalog& catalog = test::shipped_catalog();
  const LoadedScenario base = load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/hetero-70b-two-regions.yaml", {}, catalog);
  const Sweep sweep = run_sweep(base, catalog, {axis_from_text("cluster.islands.0.nodes=8:256:x2")});
  std::size_t feasible = 0;
  for (const SweepPoint& p : sweep.points) feasible += p.estimate.feasible ? 1 : 0;
  REQUIRE(feasible >= 3);
  const std::string svg = sweep_plot_svg(sweep);
  const test::XmlDocument doc = test::parse_xml(svg);
  REQUIRE(doc.ok);
  CHECK(doc.count_class("marker") == 2 * feasible);
  CHECK(doc.count("svg") == 3);  // the document and its two panels
  CHECK_THAT(doc.text, Catch::Contains("Throughput per GPU") && Catch::Contains("Cost per million tokens"));
  REQUIRE(!sweep.knees.empty());
  REQUIRE(sweep.knees.front().knee.found);
  CHECK_THAT(doc.text, Catch::Contains("knee"));
  bool crosses = false;
  for (const TransitionSeries& t : sweep.transitions) crosses = crosses || !t.transition.crossings.empty();
  if (crosses) CHECK_THAT(doc.text, Catch::Contains("comm 50 %"));
}

TEST_CASE("sweep plot: a categorical axis is drawn by position with its labels") {
  const Catalog& catalog = test::shipped_catalog();
  const LoadedScenario base = load_scenario(SHARDMETER_TEST_DATA_DIR "/small.yaml", {}, catalog);
  const Sweep sweep = run_sweep(base, catalog, {axis_from_text("plan.sharding=[zero1, fsdp, hsdp]")});
  const test::XmlDocument doc = test::parse_xml(sweep_plot_svg(sweep));
  REQUIRE(doc.ok);
  CHECK_THAT(doc.text, Catch::Contains("zero1") && Catch::Contains("fsdp"));
}

TEST_CASE("sweep --plot through the binary: written atomically, a bad name is status 2 and writes nothing") {
  const fs::path dir = fs::temp_directory_path() / ("shardmeter_sweep_plot_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto ok = run_shardmeter("sweep small.yaml --axis cluster.islands.0.gpus=16:64:x2 --plot '" +
                                 (dir / "s.svg").string() + "'");
  REQUIRE(ok.status == 0);
  CHECK(test::parse_xml(testing::read_text(dir / "s.svg")).ok);
  const auto bad = run_shardmeter("sweep small.yaml --axis cluster.islands.0.gpus=16:64:x2 --plot '" +
                                  (dir / "s.png").string() + "'");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains(".svg"));
  CHECK_FALSE(fs::exists(dir / "s.png"));
  const auto missing_dir = run_shardmeter("sweep small.yaml --axis plan.tp=[1,2] --plot /nonexistent/dir/s.svg");
  CHECK(missing_dir.status == 2);
}
