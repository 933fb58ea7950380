// The MoE accuracy warnings (docs/model.md §15.8): which plans carry them, worked out by hand from the rule
// (local experts = E / ep >= 16; clamped or biased experts), on the Megatron stacks only, and that an estimate
// and its JSON carry them.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/job/evaluate.hpp"
#include "model/moe/moe_accuracy.hpp"
#include "results/files/estimate_json.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/validation/validation.hpp"

using namespace shardmeter::cli;
namespace m = shardmeter::model;

namespace {

constexpr std::uint32_t kMany = m::bit(m::Warning::moe_many_local_experts);
constexpr std::uint32_t kUnfused = m::bit(m::Warning::moe_unfused_expert_path);
constexpr std::uint32_t kFp8 = m::bit(m::Warning::moe_fp8);

m::Scenario preset_scenario(const std::string& preset, int gpus, const std::string& plan) {
  const ScenarioDocument doc = scenario_document_from_text(
      "moe-accuracy-test", "{name: t, model: {preset: " + preset +
                               "}, training: {global_batch: 256, micro_batch: 1, tokens: 1e9}, cluster: {islands: "
                               "[{gpu: h100-sxm, gpus: " + std::to_string(gpus) + "}]}, plan: {" + plan + "}}");
  return parse_scenario(doc, shardmeter::test::shipped_catalog());
}

}  // namespace

TEST_CASE("moe_accuracy_warnings: 16 local experts and gpt-oss's experts, on Megatron stacks only", "[moe][warnings]") {
  // gpt-oss-120b: 128 experts, clamp 7, biases. EP 8 -> 128/8 = 16 local experts: both warnings (the H100 and B200
  // validation rows). EP 64 -> 2 local: only the unfused path (the GB200 row).
  const m::Scenario goss8 = preset_scenario("gpt-oss-120b", 64, "ep: 8, pp: 4, stack: megatron_te");
  CHECK(m::moe_accuracy_warnings(goss8.model, goss8.plan, goss8.training.precision) == (kMany | kUnfused));
  const m::Scenario goss64 = preset_scenario("gpt-oss-120b", 64, "ep: 64, stack: megatron_te");
  CHECK(m::moe_accuracy_warnings(goss64.model, goss64.plan, goss64.training.precision) == kUnfused);

  // Qwen3-235B-A22B: 128 experts, no clamp, no biases. EP 32 -> 4 local: none (the ModelZoo EP 32 rows); EP 8 -> 16:
  // many local experts (the PP 32 and TP 4 rows). Stack megatron counts as Megatron-Core too.
  const m::Scenario q32 = preset_scenario("qwen3-235b-a22b", 256, "ep: 32, tp: 2, pp: 8, stack: megatron_te");
  CHECK(m::moe_accuracy_warnings(q32.model, q32.plan, q32.training.precision) == 0);
  const m::Scenario q8 = preset_scenario("qwen3-235b-a22b", 256, "ep: 8, tp: 4, pp: 8, stack: megatron");
  CHECK(m::moe_accuracy_warnings(q8.model, q8.plan, q8.training.precision) == kMany);

  // The threshold: Qwen3-30B-A3B (128 experts) at EP 16 holds 8 local experts (the skill rows, within 4.5 %): none;
  // EP 1 holds all 128: many.
  const m::Scenario q30_16 = preset_scenario("qwen3-30b-a3b", 16, "ep: 16, stack: megatron_te");
  CHECK(m::moe_accuracy_warnings(q30_16.model, q30_16.plan, q30_16.training.precision) == 0);
  const m::Scenario q30_1 = preset_scenario("qwen3-30b-a3b", 8, "ep: 1, recompute: full, stack: megatron_te");
  CHECK(m::moe_accuracy_warnings(q30_1.model, q30_1.plan, q30_1.training.precision) == kMany);

  // DeepSeek-V3: 256 experts; EP 16 -> 16 local (many), EP 64 -> 4 (none).
  const m::Scenario ds16 = preset_scenario("deepseek-v3", 256, "ep: 16, pp: 16, stack: megatron_te");
  CHECK(m::moe_accuracy_warnings(ds16.model, ds16.plan, ds16.training.precision) == kMany);
  const m::Scenario ds64 = preset_scenario("deepseek-v3", 256, "ep: 64, pp: 4, stack: megatron_te");
  CHECK(m::moe_accuracy_warnings(ds64.model, ds64.plan, ds64.training.precision) == 0);

  // fp8 MoE on Megatron-Core (the Megatron-Bridge 26.04.01 H100 rows): the fp8 warning beside any other.
  CHECK(m::moe_accuracy_warnings(q30_16.model, q30_16.plan, m::Precision::fp8) == kFp8);
  CHECK(m::moe_accuracy_warnings(q8.model, q8.plan, m::Precision::fp8) == (kMany | kFp8));

  // No MoE measurement on the other stacks: no warning, whatever the experts.
  const m::Scenario goss_fsdp = preset_scenario("gpt-oss-120b", 64, "ep: 8, stack: torch_fsdp2, sharding: fsdp");
  CHECK(m::moe_accuracy_warnings(goss_fsdp.model, goss_fsdp.plan, goss_fsdp.training.precision) == 0);

  // Dense models never carry them, biases or not (GPT-3 175B has biases).
  const m::Scenario dense = preset_scenario("gpt3-175b", 64, "tp: 8, pp: 8, stack: megatron_te");
  CHECK(m::moe_accuracy_warnings(dense.model, dense.plan, dense.training.precision) == 0);
  CHECK(m::moe_accuracy_warnings(dense.model, dense.plan, m::Precision::fp8) == 0);
}

TEST_CASE("An MoE estimate carries the accuracy warnings in its bits and its JSON", "[moe][warnings]") {
  const m::Scenario s = preset_scenario("gpt-oss-120b", 64, "ep: 8, pp: 4, stack: megatron_te");
  const m::Estimate e = m::evaluate(s);
  CHECK((e.warnings & (kMany | kUnfused)) == (kMany | kUnfused));
  const nlohmann::json j = nlohmann::json::parse(shardmeter::results::estimate_json(s, e, "gpt-oss-h100"));
  // (its batch, past the optimal batch of a 5B-active model on the preset's budget, adds batch_beyond_data: §9.7)
  std::vector<std::string> moe;
  for (const auto& w : j["warnings"])
    if (w["name"].get<std::string>().rfind("moe_", 0) == 0) moe.push_back(w["name"].get<std::string>());
  REQUIRE(moe.size() == 2);
  CHECK(moe[0] == "moe_many_local_experts");
  CHECK(moe[1] == "moe_unfused_expert_path");
  // The search's path (evaluate_into over a reused estimate) sets the same bits.
  m::Estimate reused = m::evaluate(preset_scenario("qwen3-235b-a22b", 256, "ep: 32, tp: 2, pp: 8"));
  CHECK(reused.warnings == 0);
  m::evaluate_into(s, reused);
  CHECK(reused.warnings == e.warnings);
}

TEST_CASE("The MoE warnings' figures are what validate measures on the rows they cover", "[moe][warnings][validation]") {
  // Each text states how many published rows of its kind were predicted short and by how much (the smallest and
  // the largest shortfall, each rounded to a whole percent). Recomputed here from the shipped table, so a model change that
  // moves those rows fails this test until the texts (and docs/model.md §15.8) say what validate says.
  std::vector<ValidationRun> runs =
      load_validation_runs(SHARDMETER_SOURCE_DIR "/scenarios/validation/published_runs.csv",
                           shardmeter::test::shipped_catalog());
  predict(runs);
  for (const m::WarningText& w : m::kWarningTexts) {
    if ((m::bit(w.warning) & m::kMoeAccuracyWarnings) == 0) continue;
    INFO(w.name);
    int rows = 0, short_rows = 0;
    double smallest = 1e9, largest = 0, longest = 0;
    for (const ValidationRun& r : runs) {
      if (!r.scored() || (m::moe_accuracy_warnings(r.scenario.model, r.scenario.plan, r.scenario.training.precision) & m::bit(w.warning)) == 0) continue;
      ++rows;
      if (r.error() < 0) {
        ++short_rows;
        smallest = std::min(smallest, -100 * r.error());
        largest = std::max(largest, -100 * r.error());
      } else {
        longest = std::max(longest, 100 * r.error());
      }
    }
    REQUIRE(rows > 0);
    const std::string text(w.text);
    std::smatch m;
    if (std::regex_search(text, m, std::regex(R"(of the ([0-9]+) published runs, ([0-9]+) was predicted ([0-9]+) % shorter and ([0-9]+) was predicted ([0-9]+) % longer)"))) {
      // Misses both ways (the fp8 rows): the count and the largest miss of each sign.
      CHECK(std::stoi(m[1]) == rows);
      CHECK(std::stoi(m[2]) == short_rows);
      CHECK(std::stoi(m[4]) == rows - short_rows);
      CHECK(std::stoi(m[3]) == std::lround(largest));
      CHECK(std::stoi(m[5]) == std::lround(longest));
      continue;
    }
    if (std::regex_search(text, m, std::regex(R"(([0-9]+) of the ([0-9]+) such published runs were predicted ([0-9]+)-([0-9]+) %)"))) {
      CHECK(std::stoi(m[1]) == short_rows);
      CHECK(std::stoi(m[2]) == rows);
    } else {
      REQUIRE(std::regex_search(text, m, std::regex(R"(the ([0-9]+) published runs were predicted ([0-9]+)-([0-9]+) %)")));
      CHECK(std::stoi(m[1]) == rows);
      CHECK(short_rows == rows);
    }
    CHECK(std::stoi(m[m.size() - 2]) == std::lround(smallest));
    CHECK(std::stoi(m[m.size() - 1]) == std::lround(largest));
  }
}
