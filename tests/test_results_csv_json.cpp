#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "results/files/csv.hpp"
#include "results/errors.hpp"
#include "results/files/json.hpp"
#include "results/files/row_layout.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;
using test::ScratchDir;

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("CSV fields are quoted as RFC 4180 says", "[results][csv]") {
  CHECK(results::csv_field("h100-sxm") == "h100-sxm");
  CHECK(results::csv_field("") == "");
  CHECK(results::csv_field("a,b") == "\"a,b\"");
  CHECK(results::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(results::csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(results::csv_field("cr\r") == "\"cr\r\"");
}

TEST_CASE("CSV: header of column names, CRLF records, shortest exact numbers", "[results][csv]") {
  results::Table t{{"index", "total_cost_usd", "axis:plan.sharding", "note"}, {}, {}};
  t.rows.push_back({{"index", std::int64_t{7}}, {"total_cost_usd", 0.1}, {"axis:plan.sharding", std::string("fsdp")},
                    {"note", std::string("a, \"b\"")}});
  t.rows.push_back({{"index", std::int64_t{-3}}, {"total_cost_usd", 1e21}, {"axis:plan.sharding", std::string("")}});
  CHECK(results::to_csv(t) ==
        "index,total_cost_usd,axis:plan.sharding,note\r\n"
        "7,0.1,fsdp,\"a, \"\"b\"\"\"\r\n"
        "-3,1e+21,,\r\n");
}

TEST_CASE("CSV round-trips a front through a file", "[results][csv]") {
  ScratchDir dir;
  const auto points = test::three_points();
  const results::RowLayout layout = results::RowLayout::fit(points, test::make_run_info().axes);
  const results::Table table = layout.table(points);
  results::write_csv(dir / "front.csv", table);
  CHECK(dir.files() == std::vector<std::string>{"front.csv", "front.units.csv"});
  // The sidecar: one record per column, in column order, with its unit.
  const results::CsvRecords units = results::read_csv(dir / "front.units.csv");
  CHECK(units.header == std::vector<std::string>{"column", "unit"});
  REQUIRE(units.records.size() == table.columns.size());
  CHECK(units.records[0] == std::vector<std::string>{"index", "index"});
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    CHECK(units.records[c][0] == table.columns[c]);
    CHECK(units.records[c][1] == table.units[c]);
    CHECK_FALSE(units.records[c][1].empty());
  }

  const results::CsvRecords read = results::read_csv(dir / "front.csv");
  CHECK(read.header == table.columns);
  REQUIRE(read.records.size() == 3);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      INFO(table.columns[c]);
      const results::CellValue& v = table.rows[r].at(table.columns[c]);
      CHECK(read.records[r][c] == results::format_cell(v));
      if (const double* d = std::get_if<double>(&v)) CHECK(std::stod(read.records[r][c]) == *d);  // exact
    }
}

TEST_CASE("CSV parsing handles quotes, embedded newlines and bad input", "[results][csv]") {
  const results::CsvRecords r = results::parse_csv("a,b\r\n\"x,\"\"y\"\"\",\"1\n2\"\n3,\n");
  CHECK(r.header == std::vector<std::string>{"a", "b"});
  REQUIRE(r.records.size() == 2);
  CHECK(r.records[0] == std::vector<std::string>{"x,\"y\"", "1\n2"});
  CHECK(r.records[1] == std::vector<std::string>{"3", ""});
  CHECK_THROWS_AS(results::parse_csv("a,b\n\"open,1\n"), results::InputError);
  CHECK_THROWS_AS(results::parse_csv("a,b\n1,2,3\n"), results::InputError);
  CHECK_THROWS_AS(results::read_csv("/nonexistent/front.csv"), results::InputError);
}

TEST_CASE("JSON holds the run info and the front rows, and round-trips", "[results][json]") {
  ScratchDir dir;
  const auto points = test::three_points();
  const results::RunInfo info = test::make_run_info();
  const results::Table table = results::RowLayout::fit(points, info.axes).table(points);
  results::write_json(dir / "front.json", info, table);
  CHECK(dir.files() == std::vector<std::string>{"front.json"});

  const nlohmann::json doc = nlohmann::json::parse(slurp(dir / "front.json"));
  CHECK(doc["format"] == "shardmeter-front");
  CHECK(doc["schema_version"] == 3);
  CHECK(doc["units"]["total_cost_usd"] == "USD");
  CHECK(doc["units"]["mfu"] == "fraction");
  CHECK(doc["units"]["sequence_parallel"] == "true/false");
  CHECK(doc["run"]["seed"] == 42);
  CHECK(doc["run"]["visited"] == 36);
  CHECK(doc["run"]["estimated"] == 16);
  CHECK_FALSE(doc["run"].contains("evaluated"));
  CHECK(doc["run"]["complete"] == true);
  CHECK(doc["run"]["rejected"]["out_of_memory"] == 4);
  CHECK(doc["run"]["objectives"][1]["column"] == "tokens_per_s");
  CHECK(doc["run"]["objectives"][1]["direction"] == "max");
  REQUIRE(doc["front"].size() == 3);
  CHECK(doc["front"][1]["total_cost_usd"] == 2.0e6 + 0.5);
  CHECK(doc["front"][1]["tokens_per_s"] == 2000.125);
  CHECK(doc["front"][1]["tp"] == 4);
  CHECK(doc["front"][1]["axis:cluster.islands.0.gpu"] == "h100-sxm");

  const results::ResultFile read = results::read_json(dir / "front.json");
  CHECK(read.info == info);
  CHECK(read.front.columns == table.columns);
  REQUIRE(read.front.rows.size() == 3);
  for (std::size_t r = 0; r < 3; ++r) CHECK(read.front.rows[r] == table.rows[r]);
}

TEST_CASE("A schema_version 1 JSON file is read: its `evaluated` is the visited count", "[results][json]") {
  ScratchDir dir;
  const auto points = test::three_points();
  const results::RunInfo info = test::make_run_info();
  const results::Table table = results::RowLayout::fit(points, info.axes).table(points);
  nlohmann::json doc = nlohmann::json::parse(results::to_json_text(info, table));
  // Schema 1 called the visited count `evaluated` and did not record model calls.
  doc["schema_version"] = 1;
  doc["run"]["evaluated"] = doc["run"]["visited"];
  doc["run"].erase("visited");
  doc["run"].erase("estimated");
  std::ofstream(dir / "v1.json") << doc.dump();
  const results::ResultFile read = results::read_json(dir / "v1.json");
  CHECK(read.info.visited == 36);
  CHECK_FALSE(read.info.estimated.has_value());
  CHECK(read.front.rows.size() == 3);
  doc["schema_version"] = 3;
  std::ofstream(dir / "v3.json") << doc.dump();
  CHECK_THROWS_AS(results::read_json(dir / "v3.json"), results::InputError);
}

TEST_CASE("JSON writes non-finite numbers as null and reads them as NaN", "[results][json]") {
  results::Table t{{"mfu"}, {{{"mfu", std::nan("")}}}, {}};
  const nlohmann::json doc = nlohmann::json::parse(results::to_json_text(test::make_run_info(), t));
  CHECK(doc["front"][0]["mfu"].is_null());
  ScratchDir dir;
  results::write_json(dir / "f.json", test::make_run_info(), t);
  CHECK(std::isnan(results::number(results::read_json(dir / "f.json").front.rows[0], "mfu")));
}

TEST_CASE("JSON and CSV reading errors are typed", "[results][json]") {
  ScratchDir dir;
  std::ofstream(dir / "broken.json") << "{\"format\": ";
  std::ofstream(dir / "other.json") << "{\"hello\": 1}";
  const auto problem = [](const std::filesystem::path& p) {
    try {
      results::read_json(p);
    } catch (const results::InputError& e) {
      return e.problem();
    }
    return results::InputProblem::missing_dataset;  // "did not throw"
  };
  CHECK(problem(dir / "absent.json") == results::InputProblem::missing);
  CHECK(problem(dir / "broken.json") == results::InputProblem::malformed);
  CHECK(problem(dir / "other.json") == results::InputProblem::not_shardmeter);
}

TEST_CASE("Text outputs are atomic too", "[results][atomic]") {
  ScratchDir dir;
  CHECK_THROWS_AS(results::write_csv(dir / "no" / "f.csv", results::Table{}), results::OutputError);
  CHECK_THROWS_AS(results::write_json(dir / "no" / "f.json", test::make_run_info(), results::Table{}),
                  results::OutputError);
  std::filesystem::create_directory(dir / "taken.csv");
  CHECK_THROWS_AS(results::write_csv(dir / "taken.csv", results::Table{}), results::OutputError);
  CHECK(dir.files() == std::vector<std::string>{"taken.csv"});
}
