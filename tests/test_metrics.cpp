// The metric table (model/spec/metrics.hpp) is the one declaration of every metric: these tests keep each consumer
// covered by it — the result files' columns, `estimate --json`, the search's defaults and the `search:` section's
// objectives and constraints — and check the getters on values worked out by hand.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"
#include "model/spec/metrics.hpp"
#include "results/files/estimate_json.hpp"
#include "results/columns.hpp"
#include "results/files/row_layout.hpp"
#include "search/goal.hpp"
#include "src/planning/search_section.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "tests/results_test_points.hpp"

namespace m = shardmeter::model;
namespace results = shardmeter::results;

namespace {

bool in_table(const m::Metric* metric) {
  for (const m::Metric& entry : m::metrics())
    if (&entry == metric) return true;
  return false;
}

// tests/data/small.yaml (a valid plan without a `search:` section) followed by one.
std::string scenario_with(const std::string& section) {
  std::ifstream in(SHARDMETER_TEST_DATA_DIR "/small.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str() + "search:\n" + section;
}

shardmeter::cli::SearchSection parse_section(const std::string& section) {
  const shardmeter::test::ScratchDir dir;
  std::ofstream(dir / "s.yaml") << scenario_with(section);
  const auto& catalog = shardmeter::test::shipped_catalog();
  const shardmeter::cli::LoadedScenario l = shardmeter::cli::load_scenario((dir / "s.yaml").string(), {}, catalog);
  return shardmeter::cli::read_search_section(l.doc, catalog, l.scenario);
}

}  // namespace

TEST_CASE("metric names are unique and found by name", "[metrics]") {
  std::set<std::string_view> names;
  for (const m::Metric& metric : m::metrics()) {
    CHECK(names.insert(metric.name).second);
    CHECK(metric.get != nullptr);
    CHECK(m::find_metric(metric.name) == &metric);
  }
  CHECK(m::find_metric("no_such_metric") == nullptr);
  CHECK(&m::metric("mfu") == m::find_metric("mfu"));
}

TEST_CASE("metric getters convert to the table's units", "[metrics]") {
  m::Estimate e;
  e.memory_per_gpu_bytes = 60e9;
  e.memory_capacity_bytes = 80e9;
  e.wall_clock_s = 172'800;   // 2 days of 86,400 s
  e.wan_bytes_per_step = 2.5e9;
  e.gpus = 512;
  e.feasible = true;
  CHECK(m::metric("memory_per_gpu_gb").get(e) == 60.0);    // 60e9 B / 1e9
  CHECK(m::metric("memory_headroom_gb").get(e) == 20.0);   // (80e9 - 60e9) B / 1e9
  CHECK(m::metric("wall_clock_days").get(e) == 2.0);
  CHECK(m::metric("wan_gb_per_step").get(e) == 2.5);
  CHECK(m::metric("gpus").get(e) == 512.0);
  CHECK(m::metric("feasible").get(e) == 1.0);
  CHECK(m::metric("memory_per_gpu_gb").unit == "GB");
  CHECK(m::metric("wall_clock_days").unit == "days");
  CHECK(m::metric("total_cost_usd").natural == m::Direction::minimize);
  CHECK(m::metric("effective_tokens_per_s").natural == m::Direction::maximize);
  CHECK_FALSE(m::metric("model_flops_per_step").natural.has_value());
}

TEST_CASE("result files carry every metric as a float64 column (a boolean one for true/false metrics) with the "
          "table's unit, and no other column takes a metric's name", "[metrics]") {
  const results::RowLayout layout(2, {"plan.tp"});
  std::size_t found = 0;
  for (const results::FileColumn& column : layout.columns()) {
    const m::Metric* metric = m::find_metric(column.name);
    if (metric == nullptr) continue;
    ++found;
    CHECK(column.unit == metric->unit);
    const results::PlanPoint point = shardmeter::test::make_point(1);
    if (metric->unit == m::metric_table::kBoolean) {
      CHECK(column.type == results::ColumnType::boolean);
      CHECK(std::get<bool>(column.get(point)) == (metric->get(point.estimate) != 0));
    } else {
      CHECK(column.type == results::ColumnType::float64);
      CHECK(std::get<double>(column.get(point)) == metric->get(point.estimate));
    }
  }
  CHECK(found == m::metrics().size());   // each metric once: names are unique, so no column repeats one
  for (const results::EstimateColumn& c : results::estimate_detail_columns(2)) CHECK(m::find_metric(c.name) == nullptr);
}

TEST_CASE("estimate --json has every metric", "[metrics]") {
  const results::PlanPoint point = shardmeter::test::make_point(2);
  const nlohmann::json j = nlohmann::json::parse(results::estimate_json(point.scenario, point.estimate, "p"));
  for (const m::Metric& metric : m::metrics()) {
    INFO(metric.name);
    REQUIRE(j.contains(std::string(metric.name)));
    if (metric.name != "feasible" && metric.name != "gpus")   // written as a bool and an integer
      CHECK(j.at(std::string(metric.name)).get<double>() == metric.get(point.estimate));
  }
}

TEST_CASE("the search's defaults are table entries", "[metrics]") {
  for (const m::Objective& o : shardmeter::search::default_objectives()) CHECK(in_table(o.metric));
  const auto c = shardmeter::search::limit_metric(m::metric("mfu"), shardmeter::search::Limit::at_least, 0.3);
  CHECK(c.name == "min_mfu");
  CHECK(c.metric == &m::metric("mfu"));
}

TEST_CASE("the search section takes every metric but feasible as an objective and a constraint", "[metrics]") {
  for (const m::Metric& metric : m::metrics()) {
    const std::string name(metric.name);
    INFO(name);
    if (name == "feasible") {
      CHECK_THROWS_AS(parse_section("  objectives: [feasible]\n"), shardmeter::cli::ScenarioError);
      CHECK_THROWS_AS(parse_section("  constraints: {max_feasible: 1}\n"), shardmeter::cli::ScenarioError);
      continue;
    }
    if (metric.natural) {
      const auto s = parse_section("  objectives: [" + name + "]\n");
      REQUIRE(s.objectives.size() == 1);
      CHECK(s.objectives[0].metric == &metric);
      CHECK(s.objectives[0].direction == *metric.natural);
    } else {   // no natural direction: the scenario must say which
      CHECK_THROWS_AS(parse_section("  objectives: [" + name + "]\n"), shardmeter::cli::ScenarioError);
      const auto s = parse_section("  objectives: [{metric: " + name + ", sense: max}]\n");
      REQUIRE(s.objectives.size() == 1);
      CHECK(s.objectives[0].direction == m::Direction::maximize);
    }
    const auto s = parse_section("  constraints: {max_" + name + ": 1, min_" + name + ": 0}\n");
    REQUIRE(s.constraints.size() == 2);
    CHECK(s.constraints[0].metric == &metric);
    CHECK(s.constraints[0].limit == shardmeter::search::Limit::at_most);
    CHECK(s.constraints[1].name == "min_" + name);
  }
}
