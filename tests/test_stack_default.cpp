// plan.stack left out: the stack the plan's sharding implies (docs/scenarios.md, "The software stack"), printed
// by estimate, and within 8 % of the published PyTorch-FSDP runs (issue 30).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/spec/enum_names.hpp"
#include "model/job/evaluate.hpp"
#include "search/space.hpp"
#include "src/planning/search_section.hpp"
#include "src/planning/search_space.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/validation/validation.hpp"
#include "tests/catalog_fixture.hpp"
#include "tests/run_shardmeter.hpp"

namespace m = shardmeter::model;
using namespace shardmeter::cli;

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  // The table's cells may be quoted and hold commas; only the stack, sharding and use cells are read here.
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

}  // namespace

TEST_CASE("A scenario without plan.stack gets the stack its sharding implies", "[stack]") {
  const auto load = [](const std::string& sharding, const std::string& stack) {
    std::vector<Override> o = {{"plan.sharding", sharding, "plan.sharding=" + sharding}};
    if (!stack.empty()) o.push_back({"plan.stack", stack, "plan.stack=" + stack});
    return load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/default.yaml", o, shardmeter::test::shipped_catalog())
        .scenario.plan.stack;
  };
  CHECK(load("fsdp", "") == m::Stack::torch_fsdp2);
  CHECK(load("hsdp", "") == m::Stack::torch_fsdp2);
  CHECK(load("zero1", "") == m::Stack::megatron_te);
  CHECK(load("zero2", "") == m::Stack::megatron_te);
  CHECK(load("none", "") == m::Stack::megatron_te);
  // A stack the scenario sets is kept whatever the sharding.
  CHECK(load("fsdp", "megatron_te") == m::Stack::megatron_te);
  CHECK(load("zero1", "deepspeed") == m::Stack::deepspeed);
}

TEST_CASE("estimate prints the stack and whether it was chosen", "[stack][cli]") {
  const std::string scenario = "estimate '" SHARDMETER_SOURCE_DIR "/scenarios/default.yaml' ";
  const auto out = shardmeter::testing::run_shardmeter(scenario + "--set plan.sharding=fsdp");
  CHECK(out.status == 0);
  CHECK(out.out.find("Stack                 torch_fsdp2 (chosen: plan.stack is not set and plan.sharding is fsdp")
        != std::string::npos);
  const auto set = shardmeter::testing::run_shardmeter(scenario + "--set plan.sharding=fsdp --set plan.stack=deepspeed");
  CHECK(set.out.find("Stack                 deepspeed\n") != std::string::npos);
  const auto json = shardmeter::testing::run_shardmeter(scenario + "--set plan.sharding=hsdp --json");
  CHECK(json.out.find("\"stack\": \"torch_fsdp2\"") != std::string::npos);
  // --json says which, as the table's "chosen" does: plan.stack_source given | implied.
  CHECK(nlohmann::json::parse(json.out).at("plan").at("stack_source") == "implied");
  const auto given = shardmeter::testing::run_shardmeter(scenario + "--set plan.sharding=hsdp --set plan.stack=torch_fsdp2 --json");
  CHECK(nlohmann::json::parse(given.out).at("plan").at("stack_source") == "given");
}

TEST_CASE("a search file records where its candidates' stack came from", "[stack][search][cli]") {
  const auto run = [](const std::string& extra) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("stack-source-" + std::to_string(std::hash<std::string>{}(extra)) + ".json")).string();
    const auto r = shardmeter::testing::run_shardmeter(
        "search '" SHARDMETER_SOURCE_DIR "/scenarios/llama3-8b-finetune.yaml' -q --json '" + path + "' " + extra);
    REQUIRE(r.status == 0);
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    std::filesystem::remove(path);
    return j.at("run").at("stack_source").get<std::string>();
  };
  CHECK(run("") == "implied");
  CHECK(run("--set plan.stack=torch_fsdp2") == "given");
  CHECK(run("--framework megatron") == "framework");
}

TEST_CASE("plan.stack beside a GPU-type axis is refused at the stack axis, saying why", "[stack][search]") {
  const std::string text = R"(name: stack-gpu
model: {preset: llama3-8b, seq_len: 4096}
training: {global_batch: 256, micro_batch: 1, tokens: 1e10}
cluster: {islands: [{name: one, gpu: h100-sxm, gpus: 64}]}
plan: {tp: 1, sharding: zero1, stack: megatron_te}
search:
  axes:
    cluster.islands.0.gpu: [a100-sxm-80gb, h100-sxm]
    plan.stack: [megatron_te, torch_fsdp2]
)";
  const shardmeter::cli::LoadedScenario base = load_scenario(
      scenario_document_from_text("stack-gpu.yaml", text, {}), shardmeter::test::shipped_catalog());
  const SearchSection section = read_search_section(base.doc, shardmeter::test::shipped_catalog(), base.scenario);
  try {
    build_search_space(base, section, shardmeter::test::shipped_catalog());
    FAIL("the two axes were accepted");
  } catch (const shardmeter::cli::ScenarioError& e) {
    const std::string what = e.what();
    CHECK(what.find("stack-gpu.yaml:9") != std::string::npos);
    CHECK(what.find("search.axes.plan.stack") != std::string::npos);
    CHECK(what.find("cannot be searched together with search.axes.cluster.islands.0.gpu") != std::string::npos);
    CHECK(what.find("per (GPU type, stack)") != std::string::npos);
  }
}

TEST_CASE("PyTorch-FSDP runs estimated without plan.stack land within 8 % of the published figures",
          "[stack][validation]") {
  // The scored rows whose stack is PyTorch FSDP (torch_fsdp1 / torch_fsdp2) with fsdp or hsdp sharding, written
  // again with the stack cell empty: the stack is then the one the sharding implies.
  const std::string source = SHARDMETER_SOURCE_DIR "/scenarios/validation/published_runs.csv";
  std::ifstream in(source);
  REQUIRE(in);
  std::string header;
  std::getline(in, header);
  const std::vector<std::string> names = split_csv_line(header);
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return i;
    FAIL("no column " << name);
    return std::size_t{0};
  };
  const std::size_t stack = column("stack"), sharding = column("sharding");
  const std::string blanked =
      (std::filesystem::temp_directory_path() / ("stack_default_fsdp_rows_" + std::to_string(::getpid()) + ".csv"))
          .string();
  std::ofstream out(blanked);
  out << header << "\n";
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells = split_csv_line(line);
    const bool torch = cells[stack] == "torch_fsdp1" || cells[stack] == "torch_fsdp2";
    if (!torch || (cells[sharding] != "fsdp" && cells[sharding] != "hsdp")) continue;
    cells[stack].clear();
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i > 0 ? "," : "") << cells[i];
    out << "\n";
    ++rows;
  }
  out.close();
  REQUIRE(rows > 20);
  std::vector<ValidationRun> runs = load_validation_runs(blanked, shardmeter::test::shipped_catalog());
  predict(runs);
  std::vector<const ValidationRun*> scored;
  for (const ValidationRun& r : runs) {
    CHECK(r.scenario.plan.stack == m::Stack::torch_fsdp2);
    if (r.scored()) scored.push_back(&r);
  }
  REQUIRE(scored.size() > 20);
  std::filesystem::remove(blanked);
  const ErrorSummary e = summarize(scored);
  INFO(scored.size() << " FSDP rows without plan.stack: MAPE " << e.mape << " %, worst " << e.worst << " %");
  CHECK(e.mape <= 8.0);
}

TEST_CASE("plan.stack works as a search axis: each value costs the candidates on its own efficiency set",
          "[stack][search]") {
  const std::string text = R"(name: stack-axis
model: {preset: llama3-8b, seq_len: 4096}
training: {global_batch: 256, micro_batch: 1, tokens: 1e10}
cluster: {islands: [{name: one, gpu: h100-sxm, gpus: 64}]}
plan: {tp: 1, sharding: zero1, stack: megatron_te}
search:
  axes:
    plan.stack: [megatron_te, torch_fsdp2]
    plan.sharding: [zero1, fsdp]
    plan.tp: [1, 2]
)";
  const shardmeter::cli::LoadedScenario base = load_scenario(
      scenario_document_from_text("stack-axis.yaml", text, {}), shardmeter::test::shipped_catalog());
  const SearchSection section = read_search_section(base.doc, shardmeter::test::shipped_catalog(), base.scenario);
  const shardmeter::search::Space space = build_search_space(base, section, shardmeter::test::shipped_catalog());
  REQUIRE(space.size() == 8);
  // h100-sxm has an efficiency set of its own for megatron_te (scenarios/gpus.yaml): the two stacks' candidates
  // differ in the GPU's constants as well as in plan.stack, and the sharding axis leaves both alone.
  std::set<std::pair<m::Stack, double>> seen;
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    const m::Scenario s = space.scenario(i);
    seen.insert({s.plan.stack, s.cluster.islands[0].gpu.gemm_efficiency});
  }
  REQUIRE(seen.size() == 2);
  CHECK(seen.begin()->second != std::next(seen.begin())->second);
}

TEST_CASE("search --framework gives a front whose every row exports to that framework", "[framework][cli]") {
  for (const std::string framework : {"torchtitan", "megatron", "deepspeed"}) {
    INFO(framework);
    const std::string h5 = (std::filesystem::temp_directory_path() /
                            ("framework_front_" + framework + std::to_string(::getpid()) + ".h5")).string();
    const auto search = shardmeter::testing::run_shardmeter(
        "search '" SHARDMETER_SOURCE_DIR "/scenarios/default.yaml' -q --framework " + framework + " -o '" + h5 + "'");
    REQUIRE(search.status == 0);
    // "Framework NAME (costed on STACK): N feasible plans it can run; M excluded ..." with the counts by reason.
    CHECK(search.out.find("Framework " + framework + " (costed on ") != std::string::npos);
    const std::size_t at = search.out.find("Pareto front: ");
    REQUIRE(at != std::string::npos);
    const int rows = std::stoi(search.out.substr(at + 14));
    REQUIRE(rows > 0);
    for (int row = 1; row <= rows; ++row) {
      INFO("row " << row);
      const auto exported = shardmeter::testing::run_shardmeter("export '" + h5 + "' --format " + framework +
                                                                " --pick " + std::to_string(row));
      CHECK(exported.status == 0);
      CHECK(exported.err.find("cannot express") == std::string::npos);
    }
    std::filesystem::remove(h5);
  }
  // Without the filter the default front's knee is ZeRO-1, which torchtitan refuses: the filter is what makes it work.
  const std::string h5 = (std::filesystem::temp_directory_path() /
                          ("framework_front_none" + std::to_string(::getpid()) + ".h5")).string();
  REQUIRE(shardmeter::testing::run_shardmeter("search '" SHARDMETER_SOURCE_DIR "/scenarios/default.yaml' -q -o '" +
                                              h5 + "'").status == 0);
  CHECK(shardmeter::testing::run_shardmeter("export '" + h5 + "' --format torchtitan").status == 2);
  std::filesystem::remove(h5);
}
