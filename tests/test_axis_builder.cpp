#include <catch2/catch.hpp>

#include "src/planning/axis_builder.hpp"
#include "catalog_fixture.hpp"
#include "src/scenario/version.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;

namespace {
}  // namespace

TEST_CASE("ranges expand geometrically, arithmetically and by one") {
  const SourceLocation here{"x.yaml", 3, 5};
  CHECK(expand_range("64:1024:x2", "k", here) == std::vector<std::string>{"64", "128", "256", "512", "1024"});
  CHECK(expand_range("8:40:+8", "k", here) == std::vector<std::string>{"8", "16", "24", "32", "40"});
  CHECK(expand_range("1:3", "k", here) == std::vector<std::string>{"1", "2", "3"});
  CHECK(expand_range("64:8192:x2", "k", here).size() == 8);
  CHECK(expand_range("3:100:x4", "k", here) == std::vector<std::string>{"3", "12", "48"});
  for (const char* bad : {"a:b", "8:4", "8:64:x1", "8:64:*2", "0:64:x2", "1:10:+0", "1:1000000:+1"}) {
    INFO(bad);
    CHECK_THROWS_AS(expand_range(bad, "plan.tp", here, 1000), ScenarioError);
  }
  // Issue 14: stepping past INT64_MAX was signed overflow (undefined; in practice a wrap to negative values).
  CHECK(expand_range("9223372036854775807:9223372036854775807", "k", here) ==
        std::vector<std::string>{"9223372036854775807"});
  CHECK(expand_range("9223372036854775806:9223372036854775807:+5", "k", here) ==
        std::vector<std::string>{"9223372036854775806"});
  CHECK(expand_range("4611686018427387904:9223372036854775807:x2", "k", here) ==
        std::vector<std::string>{"4611686018427387904"});  // 2^62; 2^63 does not fit
  CHECK(expand_range("-9223372036854775807:-9223372036854775806", "k", here).size() == 2);
  try {
    expand_range("8:4", "plan.tp", here);
  } catch (const ScenarioError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("x.yaml:3:5: plan.tp = 8:4 starts above its end"));
  }
}

TEST_CASE("axes from the command line take lists, ranges and maps") {
  CHECK(axis_from_text("plan.tp=[1, 2, 4]").values == std::vector<std::string>{"1", "2", "4"});
  CHECK(axis_from_text("cluster.islands.0.gpus=64:256:x2").values.size() == 3);
  CHECK(axis_from_text("plan.sharding=fsdp").values == std::vector<std::string>{"fsdp"});
  const AxisSpec maps = axis_from_text("cluster.islands.1=[{gpu: h100-sxm, gpus: 64}]");
  REQUIRE(maps.values.size() == 1);
  CHECK_THAT(maps.values[0], Catch::Contains("gpu: h100-sxm"));
  CHECK_THROWS_AS(axis_from_text("plan.tp"), ScenarioError);
  CHECK_THROWS_AS(axis_from_text("plan.tp=[1, 2"), ScenarioError);
}

TEST_CASE("an axis value becomes the byte patch that --set would produce") {
  const LoadedScenario base = load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/default.yaml", {}, test::shipped_catalog());
  const search::Axis axis = build_axis(base.doc, base.scenario, test::shipped_catalog(), axis_from_text("plan.tp=[1, 4, 8]"));
  REQUIRE(axis.patches.size() == 3);
  CHECK(axis.labels == std::vector<std::string>{"1", "4", "8"});
  const LoadedScenario direct = load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/default.yaml",
                                              {parse_override("plan.tp=4")}, test::shipped_catalog());
  model::Scenario patched = base.scenario;
  axis.patches[1].apply(patched);
  CHECK(search::same_bytes(patched, direct.scenario));

  const search::Axis gpus = build_axis(base.doc, base.scenario, test::shipped_catalog(),
                                       axis_from_text("cluster.islands.0.gpu=[a100-sxm-80gb, h200-sxm]"));
  model::Scenario h200 = base.scenario;
  gpus.patches[1].apply(h200);
  CHECK(h200.cluster.islands[0].gpu.name.view() == "h200-sxm");
  CHECK_THROWS_AS(build_axis(base.doc, base.scenario, test::shipped_catalog(), axis_from_text("cluster.islands.0.gpu=[tpu-v5]")),
                  ScenarioError);
}
