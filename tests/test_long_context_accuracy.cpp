// The long-context accuracy warning (docs/model.md §2.9): which plans carry it, by hand from the rule (flash
// attention on a Megatron stack, seq_len >= 16384), that an estimate, its JSON and the search's path carry it, and
// that its text states what `validate` measures on the published runs it covers.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "model/accuracy_warnings.hpp"
#include "model/evaluate.hpp"
#include "results/files/estimate_json.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/validation/validation.hpp"

using namespace shardmeter::cli;
namespace m = shardmeter::model;

namespace {

constexpr std::uint32_t kLong = m::bit(m::Warning::long_context);

m::Scenario llama_scenario(int seq_len, const std::string& plan) {
  const ScenarioDocument doc = scenario_document_from_text(
      "long-context-test", "{name: t, model: {preset: llama3-8b, seq_len: " + std::to_string(seq_len) +
                               "}, training: {global_batch: 64, micro_batch: 1, tokens: 1e9}, cluster: {islands: "
                               "[{gpu: h100-sxm, gpus: 8}]}, plan: {" + plan + "}}");
  return parse_scenario(doc, shardmeter::test::shipped_catalog());
}

}  // namespace

TEST_CASE("long_context_warnings: flash attention on a Megatron stack from 16,384 tokens", "[warnings][attention]") {
  // At and above the threshold on megatron_te and megatron; one token below it, nothing.
  const m::Scenario at = llama_scenario(16384, "stack: megatron_te, tp: 8");
  CHECK(m::long_context_warnings(at.model, at.plan) == kLong);
  const m::Scenario above = llama_scenario(131072, "stack: megatron, tp: 8, cp: 1");
  CHECK(m::long_context_warnings(above.model, above.plan) == kLong);
  const m::Scenario below = llama_scenario(16383, "stack: megatron_te, tp: 8");
  CHECK(m::long_context_warnings(below.model, below.plan) == 0);
  // torch_fsdp1's constant is fitted on llm-foundry rows up to 65k tokens: no warning there, nor on FSDP2.
  const m::Scenario fsdp = llama_scenario(65536, "stack: torch_fsdp1, sharding: fsdp");
  CHECK(m::long_context_warnings(fsdp.model, fsdp.plan) == 0);
  const m::Scenario fsdp2 = llama_scenario(65536, "stack: torch_fsdp2, sharding: fsdp");
  CHECK(m::long_context_warnings(fsdp2.model, fsdp2.plan) == 0);
  // Standard attention is GEMMs and memory-bound softmax, not the fitted constant.
  const m::Scenario standard = llama_scenario(16384, "stack: megatron_te, tp: 8, attention: standard");
  CHECK(m::long_context_warnings(standard.model, standard.plan) == 0);
  // A dense model carries no MoE warning beside it.
  CHECK(m::accuracy_warnings(at.model, at.plan, at.training.precision) == kLong);
}

TEST_CASE("A long-context estimate carries the warning in its bits, its JSON and the search's path", "[warnings][attention]") {
  const m::Scenario s = llama_scenario(32768, "stack: megatron_te, tp: 8");
  const m::Estimate e = m::evaluate(s);
  CHECK((e.warnings & kLong) == kLong);
  const nlohmann::json j = nlohmann::json::parse(shardmeter::results::estimate_json(s, e, "llama-32k"));
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0]["name"] == "long_context");
  m::Estimate reused = m::evaluate(llama_scenario(4096, "stack: megatron_te, tp: 8"));
  CHECK(reused.warnings == 0);
  m::evaluate_into(s, reused);
  CHECK(reused.warnings == e.warnings);
}

TEST_CASE("The long-context warning's figures are what validate measures on the runs it covers", "[warnings][validation]") {
  // The text states how many published runs the rule covers and the smallest and largest excess, each rounded to a
  // whole percent, over the scored rows of both tables (the calibration table and the held-out runs). A model change
  // that moves them fails here until the text (and docs/model.md §2.9) says what validate says.
  std::vector<ValidationRun> runs;
  for (const char* file : {"/scenarios/validation/published_runs.csv", "/scenarios/validation/heldout_runs.csv"}) {
    std::vector<ValidationRun> part =
        load_validation_runs(std::string(SHARDMETER_SOURCE_DIR) + file, shardmeter::test::shipped_catalog());
    predict(part);
    runs.insert(runs.end(), part.begin(), part.end());
  }
  int rows = 0, long_rows = 0;
  double smallest = 1e9, largest = 0;
  for (const ValidationRun& r : runs) {
    if (!r.scored() || m::long_context_warnings(r.scenario.model, r.scenario.plan) == 0) continue;
    ++rows;
    if (r.error() > 0) ++long_rows;
    smallest = std::min(smallest, 100 * r.error());
    largest = std::max(largest, 100 * r.error());
  }
  std::string text;
  for (const m::WarningText& w : m::kWarningTexts)
    if (w.warning == m::Warning::long_context) text = w.text;
  std::smatch t;
  REQUIRE(std::regex_search(text, t, std::regex(R"(the ([0-9]+) published runs at 16k-128k were predicted ([0-9]+)-([0-9]+) % longer)")));
  CHECK(std::stoi(t[1]) == rows);
  CHECK(long_rows == rows);
  CHECK(std::stoi(t[2]) == std::lround(smallest));
  CHECK(std::stoi(t[3]) == std::lround(largest));
}
