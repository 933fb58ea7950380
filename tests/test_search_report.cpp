// What `shardmeter search` prints: the front table's plan and metric cells, number formats, and the progress
// bar that stays silent for short searches.
#include <catch2/catch.hpp>

#include <cstdio>
#include <sstream>
#include <string>

#include "model/spec/estimate_warnings.hpp"
#include "src/text/front_table.hpp"
#include "src/text/progress_bar.hpp"
#include "src/text/progress_log.hpp"
#include "src/text/text_format.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;

namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) text.push_back(static_cast<char>(c));
  return text;
}

// A printed table, one string per line.
std::vector<std::string> lines_of(const std::string& table) {
  std::vector<std::string> lines;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("numbers as the search report prints them", "[search_report]") {
  CHECK(grouped(1234567.4) == "1,234,567");
  CHECK(usd(950) == "$950.00");
  CHECK(usd(12345) == "$12,345");
  CHECK(usd(9.154e6) == "$9.15 M");
  CHECK(percent(0.3934) == "39.3 %");
  CHECK(count_si(1.234e6) == "1.23 M");
  CHECK(count_si(950) == "950");
  CHECK(duration(0.0042) == "4.20 ms");
  CHECK(duration(1.234) == "1.23 s");
  CHECK(duration(125) == "2 min 05 s");
  // Issue 14: 2^63 candidates printed as "-0" (llround overflowed); huge numbers go to 3 significant digits.
  CHECK(grouped(9223372036854775808.0) == "9.22e+18");
  CHECK(grouped(-1e300) == "-1e+300");
  CHECK(grouped(999999999999999999.0) == "1e+18");
  CHECK(count_si(1.8446744073709552e19) == "18446744073.71 G");
  CHECK(duration(1e300) == "1e+300 s");
}

TEST_CASE("the front table: one row per point, plan columns, then cost, throughput, wall-clock, MFU",
          "[search_report]") {
  const std::vector<results::PlanPoint> points = test::three_points();
  using shardmeter::model::Direction;
  using shardmeter::model::metric;
  const std::string table = format_front_table(points, {{&metric("total_cost_usd"), Direction::minimize},
                                                        {&metric("tokens_per_s"), Direction::maximize},
                                                        {&metric("step_time_s"), Direction::minimize}});
  CHECK(std::count(table.begin(), table.end(), '\n') == 4);
  CHECK_THAT(table, Catch::StartsWith("#  GPU"));
  CHECK_THAT(table, Catch::Contains("islands x GPUs") && Catch::Contains("tp/pp/cp") && Catch::Contains("bottleneck"));
  CHECK_THAT(table, Catch::Contains("step_time_s"));   // an objective the fixed columns do not show
  CHECK_THAT(table, Catch::Contains("a100-sxm-80gb") && Catch::Contains("h200-sxm"));
}

TEST_CASE("the front table marks a GPU type uncalibrated on its row's stack only", "[search_report][calibration]") {
  std::vector<results::PlanPoint> points = test::three_points();
  points[0].scenario.cluster.islands[0].gpu.name.assign("b200");
  points[1].scenario.cluster.islands[0].gpu.name.assign("b200");
  points[0].scenario.plan.stack = shardmeter::model::Stack::megatron_te;   // b200's fit covers it
  points[1].scenario.plan.stack = shardmeter::model::Stack::torch_fsdp2;   // derived base set
  using shardmeter::model::Direction;
  using shardmeter::model::metric;
  const std::vector<std::string> pairs{"b200:torch_fsdp2"};
  const std::vector<std::string> lines = lines_of(format_front_table(
      points, {{&metric("total_cost_usd"), Direction::minimize}, {&metric("tokens_per_s"), Direction::maximize}},
      pairs));
  REQUIRE(lines.size() == 4);
  CHECK_THAT(lines[1], Catch::Contains("b200") && !Catch::Contains("*"));
  CHECK_THAT(lines[2], Catch::Contains("b200*"));
  CHECK_THAT(lines[3], !Catch::Contains("*"));
}

TEST_CASE("the front table of MoE plans: an ep/etp column, '!' on rows with an MoE accuracy warning, its legend",
          "[search_report][moe]") {
  namespace m = shardmeter::model;
  std::vector<results::PlanPoint> points = test::three_points();
  using m::Direction;
  using m::metric;
  const std::vector<m::Objective> goals{{&metric("total_cost_usd"), Direction::minimize},
                                        {&metric("tokens_per_s"), Direction::maximize}};
  // Dense: no ep/etp column, no legend.
  CHECK_THAT(format_front_table(points, goals), !Catch::Contains("ep/etp"));
  CHECK(format_front_warnings(points).empty());

  for (results::PlanPoint& p : points) p.scenario.model.moe.experts = 128;
  points[0].scenario.plan.ep = 8;                                            // 16 local experts
  points[0].estimate.warnings = m::bit(m::Warning::moe_many_local_experts);
  points[1].scenario.plan.ep = 32;
  points[1].scenario.plan.ep_dispatcher = m::EpDispatcher::deepep;
  points[1].scenario.plan.ep_overlap = true;
  points[2].scenario.plan.ep = 64;
  points[2].scenario.plan.etp = 2;
  const std::vector<std::string> lines = lines_of(format_front_table(points, goals));
  REQUIRE(lines.size() == 4);
  CHECK_THAT(lines[0], Catch::Contains("tp/pp/cp  ep/etp"));
  CHECK_THAT(lines[1], Catch::StartsWith("1!") && Catch::Contains("8/1 "));
  CHECK_THAT(lines[2], Catch::StartsWith(" 2 ") && Catch::Contains("32/1 deepep overlap"));
  CHECK_THAT(lines[3], Catch::StartsWith(" 3 ") && Catch::Contains("64/2 "));
  // The legend names the warnings some row carries, once each, and only those.
  const std::string legend = format_front_warnings(points);
  CHECK_THAT(legend, Catch::StartsWith("! moe_many_local_experts: 16 or more routed experts per GPU"));
  CHECK(std::count(legend.begin(), legend.end(), '\n') == 1);
  CHECK_THAT(legend, !Catch::Contains("moe_unfused_expert_path"));
}

TEST_CASE("the front table marks a dense plan beyond the batch term's data with '!' and names it", "[search_report][tokens]") {
  namespace m = shardmeter::model;
  std::vector<results::PlanPoint> points = test::three_points();
  const std::vector<m::Objective> goals{{&m::metric("total_cost_usd"), m::Direction::minimize},
                                        {&m::metric("effective_tokens_per_s"), m::Direction::maximize}};
  points[2].estimate.warnings = m::bit(m::Warning::batch_beyond_data);   // docs/model.md §9.7
  const std::vector<std::string> lines = lines_of(format_front_table(points, goals));
  REQUIRE(lines.size() == 4);
  CHECK_THAT(lines[1], Catch::StartsWith(" 1 "));
  CHECK_THAT(lines[3], Catch::StartsWith("3!"));
  CHECK_THAT(format_front_warnings(points), Catch::StartsWith("! batch_beyond_data: batch token efficiency extrapolated"));
}

TEST_CASE("the progress bar draws only after its delay, and erases itself", "[search_report]") {
  std::FILE* quiet = std::tmpfile();
  {
    ProgressBar bar(quiet, 3600);
    bar.update(5, 10);
  }
  CHECK(contents(quiet).empty());
  std::fclose(quiet);

  std::FILE* drawn = std::tmpfile();
  {
    ProgressBar bar(drawn, 0);
    bar.update(5, 10);
  }
  const std::string text = contents(drawn);
  CHECK_THAT(text, Catch::StartsWith("\r[###############...............]  50.0 %  5 of 10 candidates"));
  CHECK_THAT(text, Catch::EndsWith("\r"));
  std::fclose(drawn);
}

TEST_CASE("the progress log writes a line per interval, none before the first", "[search_report]") {
  std::FILE* quiet = std::tmpfile();
  {
    ProgressLog log(quiet, "candidates on 2 MPI ranks", 3600);
    log.update(5, 10);
  }
  CHECK(contents(quiet).empty());
  std::fclose(quiet);

  // Interval 0: every update is due. 1,250,000 of 10,000,000 = 12.5 %.
  std::FILE* written = std::tmpfile();
  {
    ProgressLog log(written, "candidates on 2 MPI ranks", 0);
    log.update(1'250'000, 10'000'000);
    log.update(10'000'000, 10'000'000);
  }
  const std::string text = contents(written);
  CHECK_THAT(text, Catch::StartsWith("shardmeter: 12.5 % (1.25 M of 10.00 M candidates on 2 MPI ranks) after "));
  CHECK_THAT(text, Catch::Contains("\nshardmeter: 100.0 % (10.00 M of 10.00 M candidates on 2 MPI ranks) after "));
  std::fclose(written);
}
