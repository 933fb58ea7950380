// The validate group of published nccl-tests results (scenarios/validation/nccl_tests_runs.csv, docs/accuracy.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog_fixture.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/validation/nccl_tests_validation.hpp"

using namespace shardmeter;

TEST_CASE("nccl-tests rows: bus bandwidth predicted by the collective model, MAPE per group") {
  const std::vector<cli::NcclTestRow> rows =
      cli::score_nccl_tests(SHARDMETER_SOURCE_DIR "/scenarios/validation/nccl_tests_runs.csv", test::shipped_catalog());
  REQUIRE(rows.size() == 42);
  // h200-allgather-8gpu-16g: 16 GiB = 17179869184 B over 8 H200 in one node, NVLink 4 at 450 x 0.82 = 369 GB/s,
  // 3 µs per step. Ring/Simple: 8.4 + 7 x 3 = 29.4 µs + 7/8 x S / 369e9 = 40.7407 ms; busbw = 7/8 x S / t
  // = 369 x 40.7407 / 40.7701 = 368.734 GB/s against the published 361.4 (+2.0 %).
  const auto row = std::find_if(rows.begin(), rows.end(), [](const cli::NcclTestRow& r) {
    return r.id == "h200-allgather-8gpu-16g";
  });
  REQUIRE(row != rows.end());
  CHECK(row->predicted_gbs == Approx(368.734).epsilon(1e-5));
  CHECK(row->error_pct() == Approx((368.734 - 361.4) / 361.4 * 100).epsilon(1e-4));
  const std::vector<cli::NcclTestGroup> groups = cli::summarize_nccl_test_groups(rows);
  REQUIRE(groups.size() == 4);
  CHECK(groups[0].name == "nccl-tests-h200-node");
  CHECK(groups[0].rows == 8);
  CHECK(groups[0].worst >= groups[0].mape);
  const std::string text = cli::format_nccl_test_report(rows);
  CHECK(text.find("nccl-tests-b200-4-nodes") != std::string::npos);
  CHECK(text.find("bus-bandwidth MAPE") != std::string::npos);
}

TEST_CASE("nccl-tests rows: a bad cell is a located error") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardmeter_nccl_tests_csv";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "bad.csv").string();
  std::ofstream(path) << "id,group,gpu,gpus_per_node,nodes,operation,bytes,busbw_gbs,node_network_gbps,citation,notes\n"
                         "a,g,h100-sxm,8,1,all_reduce,1e9,300,,c,n\n"
                         "b,g,h100-sxm,8,1,broadcast,1e9,300,,c,n\n";
  try {
    cli::score_nccl_tests(path, test::shipped_catalog());
    FAIL("an unknown operation was accepted");
  } catch (const cli::ScenarioError& e) {
    const std::string what = e.what();
    CHECK(what.find("bad.csv:3") != std::string::npos);
    CHECK(what.find("broadcast") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
