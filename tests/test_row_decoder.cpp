// The one column table read both ways and the one row decoder (results/columns.hpp, results/front/row_decoder.hpp):
// a row written from a point decodes back into the same scenario and estimate columns, old files are handled by
// the decoder alone, and bad cells are located errors.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/spec/enum_names.hpp"
#include "model/spec/metrics.hpp"
#include "results/columns.hpp"
#include "results/errors.hpp"
#include "results/files/row_layout.hpp"
#include "results/front/row_decoder.hpp"
#include "tests/report_test_fronts.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;
namespace m = shardmeter::model;

namespace {

results::Row row_of(const results::PlanPoint& p) {
  const std::vector<results::PlanPoint> points{p};
  return results::RowLayout::fit(points, {"cluster.islands.0.gpu", "plan.tp"}).row(points[0]);
}

// Every column the decoder sets reads back through the same table as the cell the writer wrote.
void check_round_trip(const results::PlanPoint& p) {
  const results::Row row = row_of(p);
  const results::PlanRecord r = results::decode_row(row, 3);
  CHECK(r.row == 3);
  CHECK(r.index == p.index);
  CHECK(r.missing.empty());
  CHECK_FALSE(r.rebuilt);
  const int entries = p.scenario.cluster.island_entries;
  std::vector<results::ScenarioColumn> columns = results::scenario_columns(entries);
  for (auto& c : results::scenario_detail_columns(entries)) columns.push_back(c);
  for (const results::ScenarioColumn& c : columns) {
    INFO(c.name);
    CHECK(c.get(r.scenario, c.island) == row.at(c.name));
  }
  for (const results::EstimateColumn& c : results::estimate_detail_columns(entries)) {
    INFO(c.name);
    const results::CellValue back = c.get(r.estimate, std::max(c.island, 0));
    if (const double* d = std::get_if<double>(&back))   // bytes <-> GB: equal to the last bits or within them
      CHECK(*d == Approx(results::cell_number(row.at(c.name))).epsilon(1e-15).margin(1e-300));
    else
      CHECK(back == row.at(c.name));
  }
  for (const m::Metric& metric : m::metrics()) {
    INFO(metric.name);
    CHECK(r.metric(metric) == results::cell_number(row.at(std::string(metric.name))));
  }
}

}  // namespace

TEST_CASE("every plan column has a setter unless it is derived from others", "[results][decoder]") {
  int setters = 0;
  for (const results::ScenarioColumn& c : results::scenario_columns(2)) {
    INFO(c.name);
    const bool derived = c.name == "islands" || c.name == "total_gpus";
    CHECK((c.set == nullptr) == derived);
    setters += c.set != nullptr;
  }
  for (const results::EstimateColumn& c : results::estimate_detail_columns(2)) CHECK(c.set != nullptr);
  CHECK(setters > 50);
}

TEST_CASE("a row decodes back into the scenario and estimate it was written from", "[results][decoder]") {
  for (int k = 0; k < 3; ++k) check_round_trip(test::make_point(k));
  for (const results::PlanPoint& p : test::realistic_front()) check_round_trip(p);
  // Enums come back as enums.
  test::PlanPoint q;
  q.sharding = m::Sharding::hsdp;
  q.shard_group = 16;
  q.recompute = m::Recompute::full;
  q.sync = m::SyncMode::diloco;
  q.precision = m::Precision::fp8;
  const results::PlanRecord r = results::decode_row(row_of(test::plan_point(q)), 0);
  CHECK(r.scenario.plan.sharding == m::Sharding::hsdp);
  CHECK(r.scenario.plan.shard_group == 16);
  CHECK(r.scenario.plan.recompute == m::Recompute::full);
  CHECK(r.diloco());
  CHECK(r.scenario.training.precision == m::Precision::fp8);
}

TEST_CASE("old files: absent columns default, are listed as missing, or come from the rebuilt scenario",
          "[results][decoder]") {
  const results::PlanPoint p = test::plan_point(test::PlanPoint{});
  results::Row row = row_of(p);
  // Columns added with the MoE keys and the pipeline split: files before them hold dense, balanced plans.
  for (const char* c : {"model_experts", "ep", "etp", "ep_dispatcher", "pp_first_stage_layers", "stack"}) row.erase(c);
  // Added in schema_version 3: an export needs them, so without a rebuilt scenario they are missing.
  row.erase("model_heads");
  row.erase("overlap_grad_reduce");
  row.erase("warning_bits");
  row.erase("token_efficiency");
  const results::PlanRecord r = results::decode_row(row, 0);
  CHECK(r.scenario.model.moe.experts == 0);
  CHECK(r.scenario.plan.ep == 1);
  CHECK_FALSE(r.stack_known);
  CHECK(r.missing == std::vector<std::string>{"model_heads", "overlap_grad_reduce"});
  CHECK_THROWS_WITH(r.require_complete(), Catch::Contains("no column `model_heads`"));
  CHECK(r.metric(m::metric("warning_bits")) == 0);
  CHECK(r.metric(m::metric("token_efficiency")) == 1);
  CHECK_FALSE(std::isnan(r.metric(m::metric("goodput"))));
  // With the row's scenario rebuilt: its fields fill the gaps and the keys no column holds come from it.
  m::Scenario rebuilt = p.scenario;
  rebuilt.model.moe.router = m::MoeRouter::sigmoid;
  rebuilt.model.heads = 64;
  const results::PlanRecord full = results::decode_row(row, 0, &rebuilt);
  CHECK(full.rebuilt);
  CHECK(full.stack_known);
  CHECK(full.missing.empty());
  CHECK(full.scenario.model.heads == 64);
  CHECK(full.scenario.model.moe.router == m::MoeRouter::sigmoid);
  // A rebuilt scenario whose plan differs from the columns (catalog changed since) is not used.
  rebuilt.plan.tp = 2;
  std::string why;
  const results::PlanRecord other = results::decode_row(row, 0, &rebuilt, &why);
  CHECK_FALSE(other.rebuilt);
  CHECK_THAT(why, Catch::Contains("plan differs"));
}

TEST_CASE("a bad cell is a located error", "[results][decoder]") {
  results::Row row = row_of(test::make_point(0));
  row["sharding"] = std::string("zero4");
  CHECK_THROWS_WITH(results::decode_row(row, 0), Catch::Contains("column `sharding`") && Catch::Contains("zero4"));
  row["sharding"] = std::int64_t{3};
  CHECK_THROWS_AS(results::decode_row(row, 0), results::ResultsError);
  row = row_of(test::make_point(0));
  row["tp"] = std::string("four");
  CHECK_THROWS_WITH(results::decode_row(row, 0), Catch::Contains("column `tp` does not hold an integer"));
}
