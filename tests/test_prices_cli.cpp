// --prices FILE on estimate, search, sweep and thresholds (nightly's is in test_nightly.cpp): the file re-prices
// catalog GPUs by type; other types keep the catalog's prices; a bad file exits 2 naming file, line and key.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "results_test_points.hpp"
#include "run_shardmeter.hpp"

using shardmeter::testing::run_shardmeter;

TEST_CASE("issue 11: --prices re-prices by GPU type on estimate, search, sweep and thresholds", "[prices][cli]") {
  shardmeter::test::ScratchDir dir;
  std::ofstream(dir / "prices.yaml") << "prices:\n  h100-sxm: {price_usd_per_gpu_hour: 3.00}\n";
  const std::string scenario = "'" SHARDMETER_SOURCE_DIR "/scenarios/default.yaml'";
  const std::string prices = " --prices '" + (dir / "prices.yaml").string() + "'";

  // 512 H100 at $3.00 instead of the catalog's $1.90: $1,536 per hour.
  const auto est = run_shardmeter("estimate " + scenario + " --json" + prices);
  INFO(est.err);
  REQUIRE(est.status == 0);
  CHECK(nlohmann::json::parse(est.out)["cost_usd_per_hour"].get<double>() == Approx(512 * 3.00));
  // Another GPU type keeps its catalog price: 512 A100-80GB at $1.79.
  const auto a100 = run_shardmeter("estimate " + scenario + " --json --set cluster.islands.0.gpu=a100-sxm-80gb" + prices);
  REQUIRE(a100.status == 0);
  CHECK(nlohmann::json::parse(a100.out)["cost_usd_per_hour"].get<double>() == Approx(512 * 1.79));

  const auto sweep = run_shardmeter("sweep " + scenario + " --axis cluster.islands.0.gpus=[512,1024] --json" + prices);
  REQUIRE(sweep.status == 0);
  CHECK(nlohmann::json::parse(sweep.out)["points"][1]["cost_usd_per_hour"].get<double>() == Approx(1024 * 3.00));
  CHECK(run_shardmeter("thresholds " + scenario + prices).status == 0);
  const auto search = run_shardmeter("search " + scenario + " --quiet -o '" + (dir / "f.h5").string() + "'" + prices);
  INFO(search.err);
  CHECK(search.status == 0);

  std::ofstream(dir / "bad.yaml") << "prices:\n  h100-sxm: {price_usd_per_gpu_hour: -1}\n";
  const auto bad = run_shardmeter("estimate " + scenario + " --prices '" + (dir / "bad.yaml").string() + "'");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("bad.yaml:2") && Catch::Contains("price_usd_per_gpu_hour"));
}
