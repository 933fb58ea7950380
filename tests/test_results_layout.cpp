#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "results/errors.hpp"
#include "results/files/row_layout.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;

TEST_CASE("Row layout: index, scenario, metric, detail and axis columns with unique names", "[results][layout]") {
  const results::RowLayout layout(2, {"plan.tp", "cluster.islands.0.gpu"}, 16);
  const std::vector<std::string> names = layout.column_names();
  CHECK(names.front() == "index");
  CHECK(names[names.size() - 2] == "axis:plan.tp");
  CHECK(names.back() == "axis:cluster.islands.0.gpu");
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  const auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  for (const char* n : {"total_cost_usd", "tokens_per_s", "wall_clock_days", "mfu", "memory_headroom_gb", "tp",
                        "sharding", "island1_gpu", "island1_gpus", "island1_nodes", "bottleneck", "time_wan_s",
                        "island0_tokens_per_s", "island1_utilization", "island1_bottleneck",
                        "island1_memory_per_gpu_gb", "training_tokens"})
    CHECK(has(n));
  CHECK_FALSE(has("island2_gpu"));

  const auto column = [&](const std::string& n) {
    return *std::find_if(layout.columns().begin(), layout.columns().end(), [&](const auto& c) { return c.name == n; });
  };
  CHECK(column("index").type == results::ColumnType::uint64);
  CHECK(column("tp").type == results::ColumnType::int64);
  CHECK(column("total_cost_usd").type == results::ColumnType::float64);
  CHECK(column("total_cost_usd").unit == "USD");
  CHECK(column("island0_price_usd_per_gpu_hour").unit == "USD per GPU-hour");
  CHECK(column("cost_usd_per_million_tokens").unit == "USD per million tokens");
  CHECK(column("mfu").unit == "fraction");
  CHECK(column("sequence_parallel").type == results::ColumnType::boolean);
  CHECK(column("feasible").type == results::ColumnType::boolean);
  for (const results::FileColumn& c : layout.columns()) {
    INFO(c.name);
    CHECK_FALSE(c.unit.empty());   // every column has a unit (results/README.md lists them)
  }
  CHECK(column("sharding").type == results::ColumnType::text);
  CHECK(column("axis:plan.tp").text_width == 16);
}

TEST_CASE("Row layout: fit takes the largest island count and the longest label", "[results][layout]") {
  auto points = test::three_points();
  points[1].scenario.cluster.island_entries = 3;
  const results::RowLayout layout = results::RowLayout::fit(points, {"gpu", "tp"});
  CHECK(layout.island_entries() == 3);
  CHECK(layout.axis_label_width() == std::string("a100-sxm-80gb").size());
}

TEST_CASE("Row layout: points that do not fit are reported", "[results][layout]") {
  const results::RowLayout layout(1, {"gpu", "tp"});
  auto p = test::make_point(0);
  CHECK_THROWS_AS(layout.cells(p), results::ResultsError);  // two island entries, one column set
  p.scenario.cluster.island_entries = 1;
  CHECK(layout.cells(p).size() == layout.columns().size());
  p.labels.pop_back();
  CHECK_THROWS_AS(layout.cells(p), results::ResultsError);
}

TEST_CASE("Row layout: a scenario or estimate column's CellView is the value its get() gives", "[results][layout]") {
  const results::RowLayout layout(2, {"gpu", "tp"});
  const results::PlanPoint p = test::make_point(0);
  int texts = 0;
  for (const results::FileColumn& c : layout.columns()) {
    INFO(c.name);
    if (c.source != results::FileColumn::Source::scenario && c.source != results::FileColumn::Source::estimate)
      continue;
    const results::CellView view = c.source == results::FileColumn::Source::scenario
                                       ? c.scenario_view(p.scenario, c.island)
                                       : c.estimate_view(p.estimate, c.island);
    CHECK(results::to_value(view) == c.get(p));
    CHECK(view.index() == c.get(p).index());   // the same alternative: int64, double, text or bool
    if (c.type == results::ColumnType::text) ++texts;
  }
  CHECK(texts > 5);
  // island0_gpu views the scenario's own name: nothing copied.
  const auto gpu = std::find_if(layout.columns().begin(), layout.columns().end(),
                                [](const auto& c) { return c.name == "island0_gpu"; });
  REQUIRE(gpu != layout.columns().end());
  const std::string_view name = std::get<std::string_view>(gpu->scenario_view(p.scenario, 0));
  CHECK(name.data() == p.scenario.cluster.islands[0].gpu.name.view().data());
  CHECK(name == "h100-sxm");
}
