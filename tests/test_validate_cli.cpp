#include <catch2/catch.hpp>

#include <regex>

#include "run_shardmeter.hpp"

using shardmeter::testing::run_shardmeter;

namespace {
double stated_in_readme() {
  const std::string readme = shardmeter::testing::read_text(SHARDMETER_SOURCE_DIR "/README.md");
  std::smatch m;
  REQUIRE(std::regex_search(readme, m, std::regex(R"(overall MAPE ([0-9.]+)% over ([0-9]+) runs)")));
  return std::stod(m[1]);
}
}  // namespace

TEST_CASE("shardmeter validate: MAPE no worse than README.md states") {
  const auto r = run_shardmeter("validate");
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(R"(\noverall MAPE ([0-9.]+)% over ([0-9]+) runs\n$)")));
  const double actual = std::stod(m[1]);
  INFO("validate prints " << m[0].str() << "; README.md states " << stated_in_readme() << "%");
  CHECK(actual <= stated_in_readme() + 1e-9);
  CHECK(std::stoi(m[2]) >= 60);
  // Every scored row shows a measured and a predicted time.
  CHECK_THAT(r.out, Catch::Contains("kor-t5-gpt-175b-seqsel") && Catch::Contains("MAPE per source"));
}

TEST_CASE("shardmeter validate: a malformed table is an error naming file and line, status 2") {
  const auto r = run_shardmeter("validate bad_published_runs.csv");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("bad_published_runs.csv:3:"));
}
