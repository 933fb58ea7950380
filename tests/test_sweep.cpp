// `shardmeter sweep`: points in the right number and order, analyses attached to the right rows, CSV and HDF5
// written atomically, and bad input rejected with status 2 and a message naming where, the key and the value.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <H5Cpp.h>
#include <nlohmann/json.hpp>

#include "model/job/evaluate.hpp"
#include "catalog_fixture.hpp"
#include "results/files/csv.hpp"
#include "results/files/hdf5_reader.hpp"
#include "run_shardmeter.hpp"
#include "search/patch.hpp"
#include "src/sweep/sweep.hpp"
#include "src/sweep/sweep_output.hpp"
#include "src/sweep/sweep_report.hpp"
#include "src/scenario/version.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;
using shardmeter::testing::run_shardmeter;
namespace fs = std::filesystem;

namespace {

const std::string kSmall = SHARDMETER_TEST_DATA_DIR "/small.yaml";

LoadedScenario small(const std::vector<Override>& overrides = {}) { return load_scenario(kSmall, overrides, test::shipped_catalog()); }

// A fresh empty directory for output files.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("shardmeter_sweep_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("island-size axes are recognised by their key") {
  CHECK(is_island_size_key("cluster.islands.0.gpus"));
  CHECK(is_island_size_key("cluster.islands.12.nodes"));
  CHECK(is_island_size_key("cluster.islands.1.count"));
  CHECK_FALSE(is_island_size_key("cluster.islands.0.gpu"));
  CHECK_FALSE(is_island_size_key("cluster.islands.0.gpus_per_node"));
  CHECK_FALSE(is_island_size_key("plan.tp"));
  CHECK_FALSE(is_island_size_key("xcluster.islands.0.gpus"));
}

TEST_CASE("a 1-axis sweep expands a range into one point per value, in order, each equal to --set") {
  const LoadedScenario base = small();
  const Sweep s = run_sweep(base, test::shipped_catalog(), {axis_from_text("cluster.islands.0.gpus=16:64:x2")});
  REQUIRE(s.points.size() == 3);
  CHECK(s.points[0].labels == std::vector<std::string>{"16"});
  CHECK(s.points[1].labels == std::vector<std::string>{"32"});
  CHECK(s.points[2].labels == std::vector<std::string>{"64"});
  for (const SweepPoint& p : s.points) {
    INFO(p.labels[0]);
    const LoadedScenario direct = small({parse_override("cluster.islands.0.gpus=" + p.labels[0])});
    CHECK(search::same_bytes(s.scenario_of(p), direct.scenario));
    CHECK(p.estimate.step_time_s == model::evaluate(direct.scenario).step_time_s);
    CHECK(p.series == 0);
  }
  CHECK(s.knee_axis == 0);
  CHECK(s.knees.size() == 1);
  CHECK(s.transitions.size() == 1);
}

TEST_CASE("a 2-axis sweep has n0 x n1 points, first axis outermost, and analyses per row of the first axis") {
  const LoadedScenario base = small();
  const Sweep s = run_sweep(base, test::shipped_catalog(),
                            {axis_from_text("plan.tp=[1, 2, 4]"), axis_from_text("cluster.islands.0.gpus=[16, 32]")});
  REQUIRE(s.points.size() == 6);
  const std::vector<std::vector<std::string>> expected = {{"1", "16"}, {"1", "32"}, {"2", "16"},
                                                          {"2", "32"}, {"4", "16"}, {"4", "32"}};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(s.points[i].labels == expected[i]);
    CHECK(s.points[i].series == static_cast<int>(i / 2));
    CHECK(s.scenario_of(s.points[i]).plan.tp == std::stoi(expected[i][0]));
    CHECK(s.scenario_of(s.points[i]).cluster.islands[0].gpus == std::stoi(expected[i][1]));
  }
  // The island axis is the last one: one knee series and one transition series per value of plan.tp.
  CHECK(s.knee_axis == 1);
  REQUIRE(s.knees.size() == 3);
  REQUIRE(s.transitions.size() == 3);
  CHECK(s.transitions[1].series.fixed == "plan.tp=2");
  CHECK(s.transitions[1].series.points == std::vector<std::size_t>{2, 3});
  // With the island axis first, the knee runs along it, once per value of the other axis.
  const Sweep t = run_sweep(base, test::shipped_catalog(),
                            {axis_from_text("cluster.islands.0.gpus=[16, 32, 64]"), axis_from_text("plan.tp=[2, 4]")});
  CHECK(t.knee_axis == 0);
  REQUIRE(t.knees.size() == 2);
  CHECK(t.knees[0].series.fixed == "plan.tp=2");
  CHECK(t.knees[0].series.points == std::vector<std::size_t>{0, 2, 4});
}

TEST_CASE("infeasible and inconsistent points are rows, left out of the analyses") {
  const Sweep s = run_sweep(small(), test::shipped_catalog(), {axis_from_text("plan.tp=[3, 4, 8]")});
  REQUIRE(s.points.size() == 3);
  CHECK(s.points[0].estimate.reject_reason == model::RejectReason::heads_not_divisible_by_tp);
  CHECK(s.knee_axis == -1);
  CHECK(s.knees.empty());
  REQUIRE(s.transitions.size() == 1);
  CHECK(s.transitions[0].series.points.size() == 3);
  CHECK(s.transitions[0].series.feasible == std::vector<std::size_t>{1, 2});
  const std::string table = format_sweep_table(s);
  CHECK_THAT(table, Catch::Contains("heads_not_divisible_by_tp"));
  CHECK_THAT(table, Catch::Contains("Compute/communication transition along plan.tp"));
}

TEST_CASE("a sweep over node bandwidth finds the compute/communication transition where it is") {
  const LoadedScenario base = load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/fsdp-thresholds-h100.yaml", {}, test::shipped_catalog());
  const Sweep s = run_sweep(base, test::shipped_catalog(), {axis_from_text("cluster.islands.0.node_network_gbps=100:3200:x2")});
  const TransitionSeries& t = s.transitions.at(0);
  REQUIRE(t.transition.status == CrossingStatus::crosses);
  REQUIRE(t.transition.crossings.size() == 1);
  const Crossing& c = t.transition.crossings[0];
  CHECK_FALSE(c.rising);
  const double below = s.points[c.after].estimate.exposed_comm_fraction;
  const double above = s.points[c.after + 1].estimate.exposed_comm_fraction;
  CHECK(below >= 0.5);
  CHECK(above < 0.5);
  const double x0 = std::stod(s.points[c.after].labels[0]), x1 = std::stod(s.points[c.after + 1].labels[0]);
  CHECK(*c.x == Approx(x0 + (0.5 - below) / (above - below) * (x1 - x0)));
  for (const SweepPoint& p : s.points) CHECK(p.comm_transition == describe_transition(s, t));
}

TEST_CASE("sweep files: CSV and HDF5 hold every point and the analysis columns") {
  const fs::path dir = scratch("files");
  const LoadedScenario base = small();
  const Sweep s = run_sweep(base, test::shipped_catalog(), {axis_from_text("cluster.islands.0.gpus=[16, 32, 64, 128]")});
  const SweepProvenance provenance{base.doc.text, {}, "2025-01-01T00:00:00Z", 0.0};

  write_sweep(s, (dir / "s.csv").string(), provenance);
  const results::CsvRecords csv = results::read_csv(dir / "s.csv");
  CHECK(csv.records.size() == 4);
  for (const char* column : {"axis:cluster.islands.0.gpus", "tokens_per_s", "exposed_comm_fraction", "knee",
                             "comm_transition"}) {
    INFO(column);
    CHECK(std::find(csv.header.begin(), csv.header.end(), column) != csv.header.end());
  }

  write_sweep(s, (dir / "s.h5").string(), provenance);
  const results::ResultFile front = results::read_front(dir / "s.h5");
  CHECK(front.front.rows.size() == 4);
  CHECK(front.info.method == "sweep");
  CHECK(front.info.axes == std::vector<std::string>{"cluster.islands.0.gpus"});
  CHECK(results::text(front.front.rows[2], "axis:cluster.islands.0.gpus") == "64");
  H5::H5File h5((dir / "s.h5").string(), H5F_ACC_RDONLY);
  const H5::DataSet sweep = h5.openDataSet("sweep");
  hsize_t rows = 0;
  sweep.getSpace().getSimpleExtentDims(&rows);
  CHECK(rows == 4);
  CHECK(sweep.getCompType().getMemberIndex("knee") >= 0);
  CHECK(h5.attrExists("sweep_knee"));
  CHECK(h5.attrExists("sweep_transition"));
  h5.close();
  CHECK(entries(dir) == 3);  // s.csv, its units sidecar s.units.csv, s.h5: no temporary files left
  fs::remove_all(dir);
}

TEST_CASE("sweep through the binary: table, JSON, output file, exit statuses") {
  const fs::path dir = scratch("cli");
  SECTION("table and file") {
    const auto r = run_shardmeter("sweep small.yaml --axis cluster.islands.0.gpus=16:64:x2 -o '" +
                                  (dir / "out.csv").string() + "'");
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("Island-size knee along cluster.islands.0.gpus"));
    CHECK(fs::exists(dir / "out.csv"));
    CHECK(fs::exists(dir / "out.units.csv"));
    CHECK(entries(dir) == 2);
  }
  SECTION("--json prints one object with a point per value") {
    const auto r = run_shardmeter("sweep small.yaml --axis plan.tp=[2,4] --axis cluster.islands.0.gpus=[16,32,64] --json");
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    REQUIRE(j.at("points").size() == 6);
    CHECK(j["points"][5]["axis:plan.tp"] == "4");
    CHECK(j["points"][5]["axis:cluster.islands.0.gpus"] == "64");
    CHECK(j.at("knee").size() == 2);
    CHECK(j.at("transition").size() == 2);
    CHECK(j["knee_axis"] == "cluster.islands.0.gpus");
  }
  SECTION("bad axis text: status 2, the key and the value named, no file") {
    const std::string out = " -o '" + (dir / "bad.csv").string() + "'";
    const auto no_equals = run_shardmeter("sweep small.yaml --axis plan.tp" + out);
    CHECK(no_equals.status == 2);
    CHECK_THAT(no_equals.err, Catch::Contains("plan.tp") && Catch::Contains("KEY=VALUES"));
    const auto bad_range = run_shardmeter("sweep small.yaml --axis cluster.islands.0.gpus=64:8:x2" + out);
    CHECK(bad_range.status == 2);
    CHECK_THAT(bad_range.err, Catch::StartsWith("small.yaml: --axis cluster.islands.0.gpus=64:8:x2: "
                                                "cluster.islands.0.gpus = 64:8:x2 starts above its end"));
    const auto bad_value = run_shardmeter("sweep small.yaml --axis plan.tp=[2,four]" + out);
    CHECK(bad_value.status == 2);
    CHECK_THAT(bad_value.err, Catch::Contains("small.yaml") && Catch::Contains("plan.tp = four"));
    const auto bad_gpu = run_shardmeter("sweep small.yaml --axis cluster.islands.0.gpu=[h100-sxm,tpu-v9]" + out);
    CHECK(bad_gpu.status == 2);
    CHECK_THAT(bad_gpu.err, Catch::Contains("small.yaml") && Catch::Contains("tpu-v9"));
    const auto unknown_key = run_shardmeter("sweep small.yaml --axis plan.tpp=[1,2]" + out);
    CHECK(unknown_key.status == 2);
    CHECK_THAT(unknown_key.err, Catch::Contains("plan.tpp"));
    CHECK(entries(dir) == 0);
  }
  SECTION("bad combinations: status 2, no file") {
    const std::string out = " -o '" + (dir / "bad.h5").string() + "'";
    CHECK(run_shardmeter("sweep small.yaml" + out).status == 2);
    CHECK(run_shardmeter("sweep small.yaml --axis plan.tp=[1] --axis plan.pp=[1] --axis plan.cp=[1]" + out).status == 2);
    // The GPU type brings its own node network: both axes would set the same field.
    const auto same = run_shardmeter("sweep small.yaml --axis cluster.islands.0.gpu=[h100-sxm,a100-sxm-80gb] "
                                     "--axis cluster.islands.0.node_network_gbps=[800,1600]" + out);
    CHECK(same.status == 2);
    CHECK_THAT(same.err, Catch::Contains("cluster.islands.0.gpu") &&
                             Catch::Contains("cluster.islands.0.node_network_gbps"));
    CHECK(run_shardmeter("sweep small.yaml --axis plan.tp=[2,4] --knee 0" + out).status == 2);
    CHECK(run_shardmeter("sweep small.yaml --axis plan.tp=[2,4] --knee 1.5" + out).status == 2);
    CHECK(run_shardmeter("sweep small.yaml --axis plan.tp=[2,4] -o '" + (dir / "x.txt").string() + "'").status == 2);
    CHECK(run_shardmeter("sweep small.yaml --axis plan.tp=[2,4] -o '" + (dir / "missing" / "x.csv").string() + "'")
              .status == 2);
    CHECK(entries(dir) == 0);
  }
  SECTION("an existing output file survives a failed sweep") {
    const fs::path keep = dir / "keep.csv";
    REQUIRE(run_shardmeter("sweep small.yaml --axis plan.tp=[2,4] -o '" + keep.string() + "'").status == 0);
    const std::string before = shardmeter::testing::read_text(keep);
    CHECK(run_shardmeter("sweep small.yaml --axis plan.tp=[2,x] -o '" + keep.string() + "'").status == 2);
    CHECK(shardmeter::testing::read_text(keep) == before);
    CHECK(entries(dir) == 2);   // keep.csv and keep.units.csv
  }
  fs::remove_all(dir);
}

TEST_CASE("issue 11: --replan re-plans every point with the search: space; the fixed layout says so") {
  // The default scenario over island size (the done-when of issue 11): the fixed layout has a knee driven by the
  // pipeline bubble; re-planned, each point is the cheapest plan of its search: space that meets the deadline.
  const LoadedScenario base =
      load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/default.yaml", {}, test::shipped_catalog());
  const std::vector<AxisSpec> axes = {axis_from_text("cluster.islands.0.gpus=[512, 2048, 8192]")};
  const Sweep fixed = run_sweep(base, test::shipped_catalog(), axes);
  CHECK_FALSE(fixed.replanned);
  CHECK_THAT(format_sweep_table(fixed), Catch::Contains("Layout fixed: every point keeps the scenario's parallelism"));
  const Sweep replanned = run_sweep(base, test::shipped_catalog(), axes, true);
  CHECK(replanned.replanned);
  CHECK(replanned.replan_objective == "total_cost_usd");
  CHECK_THAT(format_sweep_table(replanned), Catch::Contains("Re-planned: each point is the best plan"));
  for (std::size_t i = 0; i < replanned.points.size(); ++i) {
    const SweepPoint& p = replanned.points[i];
    INFO(p.labels[0]);
    REQUIRE_FALSE(p.no_plan);
    // The swept size is kept, and the re-planned point is at least as cheap as the fixed layout's.
    REQUIRE(p.replanned);   // the best plan, kept with the point
    CHECK(replanned.scenario_of(p).cluster.islands[0].gpus == std::stoi(p.labels[0]));
    CHECK(replanned.scenario_of(p).cluster.islands[0].count == base.scenario.cluster.islands[0].count);
    if (fixed.points[i].estimate.feasible) CHECK(p.estimate.total_cost_usd <= fixed.points[i].estimate.total_cost_usd);
  }
}

TEST_CASE("issue 11: knee and transition lines name the part of the step that drives them") {
  const LoadedScenario base =
      load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/default.yaml", {}, test::shipped_catalog());
  const Sweep s = run_sweep(base, test::shipped_catalog(), {axis_from_text("cluster.islands.0.gpus=64:8192:x2")});
  REQUIRE(s.knees.size() == 1);
  REQUIRE(s.knees[0].knee.found);
  // At 4,096 GPUs the fixed TP 8 x PP 4 layout (128 replicas) with 512 sequences per step leaves 4 micro-batches
  // per replica: the pipeline bubble, (p - 1) / m = 3/4 of the steady state, is what grows (41 % of the step).
  CHECK_THAT(describe_knee(s, s.knees[0]), Catch::Contains("driven by pipeline bubble"));
}
