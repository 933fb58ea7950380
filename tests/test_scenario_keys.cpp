// The key table (src/scenario/scenario_keys.cpp) is the one declaration of every scenario key: its defaults equal
// the model's default member initialisers, and a copy of it with one entry changed changes the parser, the schema
// (hence docs/scenarios.md's table) and the parsed defaults together.
#include <catch2/catch.hpp>

#include <string>

#include "catalog_fixture.hpp"
#include "model/spec/scenario.hpp"
#include "src/scenario/scenario_keys.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/scenario/scenario_schema.hpp"

using namespace shardmeter::cli;
namespace m = shardmeter::model;

namespace {

// Llama-3-8B on 16 H100s, without a plan: section, so every plan key takes its default.
constexpr const char* kNoPlan =
    "{name: t, model: {preset: llama3-8b}, training: {global_batch: 64}, cluster: {islands: [{gpu: h100-sxm, gpus: 16}]}}";

m::Scenario parse(const std::string& yaml, const KeyTable& keys) {
  return parse_scenario(scenario_document_from_text("t.yaml", yaml), shardmeter::test::shipped_catalog(), keys);
}

std::string parse_error(const std::string& yaml, const KeyTable& keys) {
  try {
    parse(yaml, keys);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

void half_the_heads(void* model) {
  auto& md = *static_cast<m::ModelSpec*>(model);
  md.kv_heads = md.heads / 2;
}

// The keys whose default the table writes into a model member.
template <class F>
void for_each_value_default(const KeyTable& keys, F&& f) {
  for (const SectionKeys& s : keys.sections())
    for (const KeySpec& k : s.keys)
      if (k.access != nullptr && k.fallback.kind == KeyDefault::Kind::value) f(s, k);
}

}  // namespace

TEST_CASE("every default of the key table equals the model struct's default member initialiser") {
  int checked = 0;
  for_each_value_default(scenario_keys(), [&](const SectionKeys& s, const KeySpec& k) {
    INFO(s.where << " " << k.name << " = " << k.fallback.text);
    CHECK(k.access->table_default(k) == k.access->model_default());
    ++checked;
  });
  CHECK(checked >= 50);  // the plain-valued keys of model:, training:, plan:, ..., the GPU fields (59 today)

  // The check can fail: a table whose plan.tp defaults to 2 disagrees with PlanSpec's tp = 1.
  KeyTable changed = scenario_keys();
  KeySpec& tp = changed.key(Section::plan, "tp");
  tp.fallback = KeyDefault::value("2");
  CHECK(tp.access->table_default(tp) == "2");
  CHECK(tp.access->model_default() == "1");
}

TEST_CASE("one changed table entry changes the parser's default and bound and the schema together") {
  KeyTable changed = scenario_keys();
  KeySpec& tp = changed.key(Section::plan, "tp");
  tp.fallback = KeyDefault::value("2");
  tp.bounds = Range::between(1, 4);
  tp.doc = "Tensor-parallel degree (at most 4 here)";

  // Parser: the default without plan:, and the bound for a value outside it.
  CHECK(parse(kNoPlan, scenario_keys()).plan.tp == 1);
  CHECK(parse(kNoPlan, changed).plan.tp == 2);
  const std::string with_tp8 = std::string(kNoPlan).insert(std::string(kNoPlan).size() - 1, ", plan: {tp: 8}");
  CHECK(parse(with_tp8, scenario_keys()).plan.tp == 8);
  const std::size_t column = with_tp8.find("tp: 8") + 4 + 1;  // yaml-cpp marks the value; columns count from 1
  CHECK(parse_error(with_tp8, changed) ==
        "t.yaml:1:" + std::to_string(column) + ": plan.tp = 8 is out of range: must be between 1 and 4");

  // Schema (docs/scenarios.md's table is this text, see test_scenario_schema.cpp): the row follows, nothing else moves.
  const std::string shipped_row = "| `tp` | int | GPUs | 1 | Tensor-parallel degree |\n";
  const std::string changed_row = "| `tp` | int | GPUs | 2 | Tensor-parallel degree (at most 4 here) |\n";
  std::string expected = schema_markdown();
  REQUIRE(expected.find(shipped_row) != std::string::npos);
  expected.replace(expected.find(shipped_row), shipped_row.size(), changed_row);
  CHECK(schema_markdown(changed) == expected);
}

TEST_CASE("derived defaults come from the table: kv_heads = heads, head_dim = hidden / heads, ffn_hidden by type") {
  const std::string gelu = "{name: t, model: {layers: 2, hidden: 4096, heads: 32, vocab: 1000, seq_len: 128}, "
                           "training: {global_batch: 16}, cluster: {islands: [{gpu: h100-sxm, gpus: 8}]}}";
  const m::ModelSpec md = parse(gelu, scenario_keys()).model;
  CHECK(md.kv_heads == 32);         // = heads
  CHECK(md.head_dim == 128);        // 4096 / 32
  CHECK(md.ffn_hidden == 16384);    // 4 x 4096 for gelu

  // The derivation is the table's: one that halves the heads gives 16 key/value heads.
  KeyTable changed = scenario_keys();
  changed.key(Section::model, "kv_heads").fallback = KeyDefault::derived("heads / 2", &half_the_heads);
  CHECK(parse(gelu, changed).model.kv_heads == 16);
}

TEST_CASE("the table's required keys are the ones the parser asks for, with the table's words") {
  const std::string no_batch = "{name: t, model: {preset: llama3-8b}, training: {micro_batch: 1}, "
                               "cluster: {islands: [{gpu: h100-sxm, gpus: 8}]}}";
  const std::size_t column = no_batch.find("{micro_batch") + 1;  // a missing key is reported at its map
  CHECK(parse_error(no_batch, scenario_keys()) ==
        "t.yaml:1:" + std::to_string(column) + ": training.global_batch is required (sequences per optimizer step)");
  KeyTable changed = scenario_keys();
  changed.key(Section::training, "global_batch").fallback = KeyDefault::value("64");
  CHECK(parse(no_batch, changed).training.global_batch == 64);
}
