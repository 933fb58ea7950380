// The scenario's `search:` section: one test per kind of bad input, each through the built binary (exit status
// 2, one line on stderr naming file:line:column, the key and the value), plus what a good section parses to.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>

#include "results/columns.hpp"
#include "catalog_fixture.hpp"
#include "run_shardmeter.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/planning/search_section.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter::cli;
using shardmeter::testing::run_shardmeter;

namespace {

// Llama-3-8B on 16 H100s (a valid base plan), followed by the search section under test.
const std::string kBase = R"(name: section-test
model:
  preset: llama3-8b
  seq_len: 4096
training:
  global_batch: 64
  tokens: 1e9
cluster:
  islands:
    - gpu: h100-sxm
      gpus: 16
plan:
  tp: 4
  pp: 2
)";

// "line:column" (1-based) of the first occurrence of `needle` after `after` in `text`.
std::string position(const std::string& text, const std::string& needle, const std::string& after = "search:") {
  const std::size_t at = text.find(needle, text.find(after));
  REQUIRE(at != std::string::npos);
  const std::size_t line_start = text.rfind('\n', at);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  const int column = static_cast<int>(at - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
  return std::to_string(line) + ":" + std::to_string(column);
}

struct Rejection {
  int status = 0;
  std::string err;
  std::string text;   // the scenario file
};

// Writes kBase + section to s.yaml in a scratch directory and runs `shardmeter <command> s.yaml`.
Rejection run_with(const std::string& section, const std::string& command = "search") {
  const shardmeter::test::ScratchDir dir;
  Rejection r;
  r.text = kBase + section;
  std::ofstream(dir / "s.yaml") << r.text;
  const auto result = run_shardmeter(command + " s.yaml" + (command == "search" ? " -o out.h5" : ""), dir.path().string());
  r.status = result.status;
  r.err = result.err;
  CHECK(result.out.empty());
  CHECK(dir.files() == std::vector<std::string>{"s.yaml"});   // no output, no temporary file
  return r;
}

// Exit status 2 and exactly "s.yaml:<line:col of needle>: <key> = <value> <problem...>".
void check_error(const std::string& section, const std::string& needle, const std::string& key_value,
                 const std::string& problem) {
  const Rejection r = run_with(section);
  INFO(r.err);
  CHECK(r.status == 2);
  const std::string head = "s.yaml:" + position(r.text, needle) + ": " + key_value + " ";
  CHECK(r.err.rfind(head, 0) == 0);
  CHECK_THAT(r.err, Catch::Contains(problem));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("search section: unknown key, with a did-you-mean", "[search_section]") {
  check_error("search:\n  axis:\n    plan.tp: [1, 2]\n", "axis", "search.axis = {plan.tp: [1, 2]}",
              "is not a known key (did you mean search.axes?)");
}

TEST_CASE("search section: an axis that is neither a list nor a range", "[search_section]") {
  check_error("search:\n  axes:\n    plan.tp: {a: 1}\n", "{a: 1}", "search.axes.plan.tp = {a: 1}",
              "is not a list of values or a range such as 64:8192:x2");
}

TEST_CASE("search section: a malformed range", "[search_section]") {
  check_error("search:\n  axes:\n    cluster.islands.0.gpus: 64:8:x2\n", "64:8:x2",
              "search.axes.cluster.islands.0.gpus = 64:8:x2", "starts above its end");
  check_error("search:\n  axes:\n    cluster.islands.0.gpus: 8:64:*2\n", "8:64:*2",
              "search.axes.cluster.islands.0.gpus = 8:64:*2", "has a bad step");
}

TEST_CASE("search section: an axis value that does not parse", "[search_section]") {
  check_error("search:\n  axes:\n    plan.tp: [1, two]\n", "[1, two]", "plan.tp = two",
              "is not a usable value: --set plan.tp=two: plan.tp = two is not an integer");
}

TEST_CASE("search section: an axis over a key the scenario does not have", "[search_section]") {
  check_error("search:\n  axes:\n    plan.tpp: [1, 2]\n", "[1, 2]", "plan.tpp = 1",
              "is not a known key (did you mean plan.tp?)");
}

TEST_CASE("search section: an axis outside the scenario's sections", "[search_section]") {
  check_error("search:\n  axes:\n    name: [a, b]\n", "name: [a, b]", "search.axes.name = [a, b]",
              "cannot be searched: axes vary keys under model, training, cluster, plan, runtime, goodput");
}

TEST_CASE("search section: two axes setting the same field", "[search_section]") {
  check_error("search:\n  axes:\n    plan: [{tp: 1}, {tp: 2}]\n    plan.tp: [1, 2]\n", "[1, 2]\n",
              "search.axes.plan.tp = [1, 2]", "sets some of the same scenario fields as search.axes.plan");
}

TEST_CASE("search section: an axis given twice", "[search_section]") {
  check_error("search:\n  axes:\n    plan.tp: [1, 2]\n    plan.tp: [4]\n", "plan.tp: [4]",
              "search.axes.plan.tp = [4]", "is given twice");
}

TEST_CASE("search section: an unknown constraint", "[search_section]") {
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  constraints:\n    budget: 5\n", "budget",
              "search.constraints.budget = 5",
              "is not a known key of search.constraints; known keys: max_total_cost_usd, max_wall_clock_days, ");
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  constraints:\n    max_wall_clock_day: 5\n", "max_wall_clock_day",
              "search.constraints.max_wall_clock_day = 5",
              "is not a known key (did you mean search.constraints.max_wall_clock_days?)");
}

TEST_CASE("search section: a constraint that is not a number", "[search_section]") {
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  constraints:\n    max_total_cost_usd: lots\n", "lots",
              "search.constraints.max_total_cost_usd = lots", "is not a number");
}

TEST_CASE("search section: a GPU quota for an unknown GPU type, or a negative one", "[search_section]") {
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  constraints:\n    gpu_quota: {h100: 64}\n", "h100:",
              "search.constraints.gpu_quota.h100 = 64",
              "names no GPU type of the catalog or the scenario (did you mean h100-sxm?)");
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  constraints:\n    gpu_quota: {h100-sxm: -8}\n", "-8",
              "search.constraints.gpu_quota.h100-sxm = -8", "is out of range: must be between 0 and 10000000");
}

TEST_CASE("search section: an objective that is not a metric", "[search_section]") {
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: [total_cost_usd, throughput]\n", "throughput",
              "search.objectives.1 = throughput", "is not a metric; metrics: step_time_s, tokens_per_s");
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: [total_cost_usd, feasible]\n", "feasible",
              "search.objectives.1 = feasible", "cannot be an objective");
}

TEST_CASE("search section: an objective's sense", "[search_section]") {
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: [{metric: mfu, sense: up}]\n", "up}",
              "search.objectives.0.sense = up", "is not one of min | max");
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: [{metric: mfu, direction: max}]\n", "direction",
              "search.objectives.0.direction = max", "is not a known key");
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: [total_cost_usd, model_flops_per_step]\n",
              "model_flops_per_step", "search.objectives.1 = model_flops_per_step",
              "has no natural direction: write {metric: model_flops_per_step, sense: min} (or max)");
}

TEST_CASE("search section: objectives that are not a list of one to four distinct metrics", "[search_section]") {
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: total_cost_usd\n", "total_cost_usd",
              "search.objectives = total_cost_usd", "is not a list of metrics");
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: [mfu, hfu, gpus, goodput, step_time_s]\n", "[mfu",
              "search.objectives = [mfu, hfu, gpus, goodput, step_time_s]", "must list 1 to 4 metrics, not 5");
  check_error("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: [mfu, {metric: mfu, sense: max}]\n", "{metric",
              "search.objectives.1 = {metric: mfu, sense: max}", "is given twice");
}

TEST_CASE("search: a scenario without a search section or without axes", "[search_section]") {
  Rejection r = run_with("");
  CHECK(r.status == 2);
  CHECK(r.err == "s.yaml: search is missing: shardmeter search needs a search: section with axes (see "
                 "docs/search.md)\n");
  r = run_with("search:\n  objectives: [mfu]\n");
  CHECK(r.status == 2);
  // Located at the section (yaml-cpp marks a block map at its first key), like every missing key.
  CHECK(r.err.rfind("s.yaml:" + position(r.text, "objectives") + ": search.axes is required", 0) == 0);
}

TEST_CASE("a bad search section is an error for estimate too", "[search_section]") {
  const Rejection r = run_with("search:\n  axes: {plan.tp: [1, 2]}\n  objectives: [cost]\n", "estimate");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("s.yaml:" + position(r.text, "cost") + ": search.objectives.0 = cost is not"));
}

TEST_CASE("a good search section: axes in order, constraints, quotas and objectives with their senses",
          "[search_section]") {
  const shardmeter::test::ScratchDir dir;
  std::ofstream(dir / "s.yaml") << kBase + R"(search:
  axes:
    plan.tp: [1, 2, 4]
    cluster.islands.0.gpus: 8:64:x2
    cluster.islands.0.gpu: [a100-sxm-80gb, h100-sxm]
  constraints:
    max_total_cost_usd: 5e6
    min_mfu: 0.3
    gpu_quota: {h100-sxm: 32}
  objectives: [wall_clock_days, {metric: mfu}, {metric: gpus, sense: max}]
)";
  const LoadedScenario l = load_scenario((dir / "s.yaml").string(), {}, shardmeter::test::shipped_catalog());
  const SearchSection s = read_search_section(l.doc, shardmeter::test::shipped_catalog(), l.scenario);
  REQUIRE(s.axes.size() == 3);
  CHECK(s.axes[0].key == "plan.tp");
  CHECK(s.axes[1].key == "cluster.islands.0.gpus");
  CHECK(s.axes[1].values == std::vector<std::string>{"8", "16", "32", "64"});
  CHECK(s.axes[2].values == std::vector<std::string>{"a100-sxm-80gb", "h100-sxm"});
  REQUIRE(s.constraints.size() == 2);
  CHECK(s.constraints[0].name == "max_total_cost_usd");
  CHECK(s.constraints[0].metric->name == "total_cost_usd");
  CHECK(s.constraints[0].limit == shardmeter::search::Limit::at_most);
  CHECK(s.constraints[0].value == 5e6);
  CHECK(s.constraints[1].name == "min_mfu");
  CHECK(s.constraints[1].limit == shardmeter::search::Limit::at_least);
  REQUIRE(s.quotas.size() == 1);
  CHECK(s.quotas[0].gpu == "h100-sxm");
  CHECK(s.quotas[0].max_gpus == 32);
  REQUIRE(s.objectives.size() == 3);
  using shardmeter::model::Direction;
  CHECK(s.objectives[0].direction == Direction::minimize);
  CHECK(s.objectives[1].direction == Direction::maximize);   // mfu's natural direction
  CHECK(s.objectives[2].direction == Direction::maximize);   // explicit

  const shardmeter::search::Goal goal = make_goal(s);
  REQUIRE(goal.objectives.size() == 3);
  shardmeter::model::Estimate e;
  e.mfu = 0.42;
  CHECK(goal.objectives[1].value(e) == 0.42);
  CHECK(goal.constraints[1].metric->get(e) == 0.42);
}

TEST_CASE("without objectives the search minimises cost and maximises effective throughput", "[search_section]") {
  const LoadedScenario l = load_scenario(SHARDMETER_TEST_DATA_DIR "/small.yaml", {}, shardmeter::test::shipped_catalog());
  const SearchSection s = read_search_section(l.doc, shardmeter::test::shipped_catalog(), l.scenario);
  CHECK_FALSE(s.present);
  REQUIRE(s.objectives.size() == 2);
  CHECK(s.objectives[0].name() == "total_cost_usd");
  CHECK(s.objectives[0].direction == shardmeter::model::Direction::minimize);
  // Every plan has a token efficiency (its batch, and DiLoCo's convergence: docs/model.md §9.8), so the default
  // throughput objective is the loss-equivalent one (issue 31).
  CHECK(s.objectives[1].name() == "effective_tokens_per_s");
  CHECK(s.objectives[1].direction == shardmeter::model::Direction::maximize);
}


TEST_CASE("issues 11 and 31: without objectives, synchronous and DiLoCo searches maximise effective tokens/s") {
  const shardmeter::test::ScratchDir dir;
  const auto objectives = [&](const std::string& axes) {
    std::ofstream(dir / "s.yaml") << kBase + "search:\n  axes:\n" + axes;
    const LoadedScenario l = load_scenario((dir / "s.yaml").string(), {}, shardmeter::test::shipped_catalog());
    const SearchSection s = read_search_section(l.doc, shardmeter::test::shipped_catalog(), l.scenario);
    REQUIRE(s.objectives.size() == 2);
    CHECK(s.objectives[0].name() == "total_cost_usd");
    return std::string(s.objectives[1].name());
  };
  CHECK(objectives("    plan.tp: [1, 2]\n") == "effective_tokens_per_s");
  CHECK(objectives("    plan.sync: [synchronous, diloco]\n    cluster.islands.0.count: [2, 4]\n") ==
        "effective_tokens_per_s");
}
