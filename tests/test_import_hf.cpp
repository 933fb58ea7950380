// model.hf_config: the published config.json of each family maps to the shipped preset of the same model (every
// model key and the parameter count), and a field that cannot be mapped is an error at its line.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "model/kernels/parameters.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/hf_config.hpp"
#include "src/scenario/scenario_keys.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "tests/catalog_fixture.hpp"

using namespace shardmeter::cli;
namespace m = shardmeter::model;

namespace {

const std::string kHf = SHARDMETER_TEST_DATA_DIR "/import/hf/";

m::ModelSpec with_model(const std::string& model_yaml) {
  const ScenarioDocument doc = scenario_document_from_text(
      "hf-test.yaml", "{name: t, model: " + model_yaml +
                          ", training: {global_batch: 8}, cluster: {islands: [{gpu: h100-sxm, gpus: 8}]}}");
  return parse_scenario(doc, shardmeter::test::shipped_catalog()).model;
}

// key -> value as the key table shows it, for every model key with a member.
std::map<std::string, std::string> model_keys(const m::ModelSpec& spec) {
  std::map<std::string, std::string> out;
  for (const KeySpec& key : section_keys(Section::model))
    if (key.access != nullptr) out[std::string(key.name)] = key.access->show(&spec);
  return out;
}

struct Family {
  const char* file;
  const char* preset;
  const char* overrides;  // what the checkpoint differs in (tests/data/import/hf/README.md), given as model keys
};

}  // namespace

TEST_CASE("hf_config: each family's published config.json is its shipped preset", "[import][hf]") {
  const Family families[] = {
      {"llama3-8b", "llama3-8b", ""},
      {"llama2-7b", "llama2-7b", ""},
      {"llama2-70b", "llama2-70b", ""},
      {"mistral-7b", "mistral-7b", ", attention_window: 4096"},
      {"mixtral-8x7b", "mixtral-8x7b", ""},
      {"mixtral-8x22b", "mixtral-8x22b", ""},
      {"qwen3-30b-a3b", "qwen3-30b-a3b", ""},
      {"qwen3-235b-a22b", "qwen3-235b-a22b", ""},
      {"deepseek-v3", "deepseek-v3", ", mtp_layers: 1, yarn_factor: 40"},
      {"gpt-oss-20b", "gpt-oss-20b", ""},
      {"gpt-oss-120b", "gpt-oss-120b", ""},
      {"mpt-7b", "mpt-7b", ", position_embedding: alibi, bias: false, vocab: 50432"},
  };
  for (const Family& f : families) {
    INFO(f.file);
    const m::ModelSpec preset = with_model(std::string("{preset: ") + f.preset + f.overrides + "}");
    const m::ModelSpec imported = with_model("{hf_config: " + kHf + f.file + ".json, seq_len: " +
                                             std::to_string(preset.seq_len) + "}");
    CHECK(model_keys(imported) == model_keys(preset));
    CHECK(m::count_parameters(imported).total == m::count_parameters(preset).total);
    CHECK(m::count_parameters(imported).active == m::count_parameters(preset).active);
  }
}

TEST_CASE("hf_config: GPT-NeoX-20B has its published 20,554,567,680 parameters", "[import][hf]") {
  // Black et al. 2022 (arXiv 2204.06745) Table 1: 44 layers, hidden 6144, 64 heads, 20.55B parameters. Untied
  // 50432 x 6144 embedding and head: 2 x 309,854,208; per block 4h^2 + 4h (attention) + 8h^2 + 5h (MLP) + 4h (two
  // LayerNorms) = 12h^2 + 13h = 453,058,560; 44 blocks 19,934,576,640; final LayerNorm 12,288. The published count
  // is 20,554,567,680 = 19,934,576,640 + 619,708,416 + 12,288 + 270,336: the last is rotary buffers, not parameters.
  const HfModel hf = read_hf_config(kHf + "gpt-neox-20b.json");
  CHECK(hf.model_type == "gpt_neox");
  const m::ModelSpec s = with_model("{hf_config: " + kHf + "gpt-neox-20b.json, seq_len: 2048}");
  CHECK(s.layers == 44);
  CHECK(s.ffn_type == m::FfnType::gelu);
  CHECK(s.norm == m::NormType::layernorm);
  CHECK(s.position_embedding == m::PositionEmbedding::rope);
  CHECK(s.bias);
  CHECK_FALSE(s.tied_embeddings);
  CHECK(std::fabs(m::count_parameters(s).total - 20'554'567'680.0) / 20'554'567'680.0 < 1e-4);
}

TEST_CASE("hf_config: the path is relative to the scenario file, explicit keys override the file", "[import][hf]") {
  const ScenarioDocument doc = scenario_document_from_text(
      SHARDMETER_TEST_DATA_DIR "/import/scenario.yaml",
      "{name: t, model: {hf_config: hf/llama3-8b.json, seq_len: 4096, layers: 16}, training: {global_batch: 8}, "
      "cluster: {islands: [{gpu: h100-sxm, gpus: 8}]}}");
  const m::ModelSpec s = parse_scenario(doc, shardmeter::test::shipped_catalog()).model;
  CHECK(s.layers == 16);
  CHECK(s.hidden == 4096);
  CHECK(s.seq_len == 4096);
}

namespace {

ScenarioError hf_error(const std::string& json) {
  try {
    read_hf_config_text(json, "config.json");
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("no error for " << json);
  return ScenarioError({}, "", "", "");
}

ScenarioError scenario_error(const std::string& model_yaml) {
  try {
    with_model(model_yaml);
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("no error for " << model_yaml);
  return ScenarioError({}, "", "", "");
}

}  // namespace

TEST_CASE("hf_config: errors name the file, line, field and value", "[import][hf]") {
  SECTION("a syntax error: nlohmann's byte offset as line and column") {
    const ScenarioError e = hf_error("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 40 96\n}\n");
    CHECK(e.where().file == "config.json");
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 22);  // where the parser stopped: the end of the unexpected "96"
    CHECK(e.problem().find("is not valid JSON") == 0);
  }
  SECTION("a field that cannot be mapped") {
    const ScenarioError e = hf_error("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 64, \"num_hidden_layers\": 2,\n"
                                     "  \"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100,\n"
                                     "  \"mystery_width\": 7\n}\n");
    CHECK(e.where().line == 5);
    CHECK(e.where().column == 3);
    CHECK(e.key() == "mystery_width");
    CHECK(e.value() == "7");
    CHECK(e.problem().find("cannot map for model_type llama") != std::string::npos);
  }
  SECTION("an unknown family") {
    const ScenarioError e = hf_error("{\"model_type\": \"t5\"}");
    CHECK(e.key() == "model_type");
    CHECK(e.value() == "t5");
    CHECK(e.where().line == 1);
  }
  SECTION("a required field missing") {
    const ScenarioError e = hf_error("{\"model_type\": \"llama\", \"hidden_size\": 64}");
    CHECK(e.key() == "num_hidden_layers");
    CHECK(e.problem().find("is required for model_type llama") == 0);
  }
  SECTION("a value of the wrong type, inside a nested object") {
    const ScenarioError e = hf_error("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2,\n"
                                     "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100,\n"
                                     "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": \"big\"}}");
    CHECK(e.key() == "rope_scaling.factor");
    CHECK(e.where().line == 3);
    CHECK(e.problem() == "is not a number");
  }
  SECTION("a key given twice") {
    const ScenarioError e = hf_error("{\"model_type\": \"llama\",\n\"model_type\": \"llama\"}");
    CHECK(e.where().line == 2);
    CHECK(e.problem().find("is given twice") == 0);
  }
  SECTION("sliding windows on a mix of blocks model.full_attention_every cannot express") {
    const ScenarioError e = hf_error(
        "{\"model_type\": \"gpt_oss\", \"hidden_size\": 64, \"num_hidden_layers\": 3, \"num_attention_heads\": 4,\n"
        "\"intermediate_size\": 64, \"vocab_size\": 100, \"num_local_experts\": 4, \"num_experts_per_tok\": 2,\n"
        "\"sliding_window\": 8, \"layer_types\": [\"sliding_attention\", \"full_attention\",\n"
        "\"full_attention\"]}");
    CHECK(e.key() == "layer_types.2");
    CHECK(e.where().line == 4);
  }
  SECTION("a mapped value outside the key's bounds is reported at the config.json field") {
    const std::string path = SHARDMETER_TEST_DATA_DIR "/import/hf/llama3-8b.json";
    const ScenarioError e = scenario_error("{hf_config: " + path + ", seq_len: 4096, heads: 5}");
    CHECK(e.where().file.find("hf-test.yaml") == 0);  // an explicit key is blamed in the scenario
    CHECK(e.key() == "model.heads");
  }
  SECTION("seq_len is required with hf_config") {
    const ScenarioError e = scenario_error("{hf_config: " + kHf + "llama3-8b.json}");
    CHECK(e.key() == "model.seq_len");
    CHECK(e.problem().find("max_position_embeddings") != std::string::npos);
  }
  SECTION("not with a preset") {
    const ScenarioError e = scenario_error("{hf_config: " + kHf + "llama3-8b.json, preset: llama3-8b, seq_len: 8}");
    CHECK(e.key() == "model.hf_config");
  }
  SECTION("MPT: an attn_config field with no model key, at its line") {
    const ScenarioError e = hf_error(
        "{\"model_type\": \"mpt\", \"d_model\": 64, \"n_layers\": 2, \"n_heads\": 4, \"vocab_size\": 100,\n"
        "\"attn_config\": {\"alibi\": true,\n  \"qk_ln\": true}}");
    CHECK(e.key() == "attn_config.qk_ln");
    CHECK(e.where().line == 3);
    CHECK(e.problem().find("norms on the queries and keys") != std::string::npos);
  }
  SECTION("MPT: an MLP kind ShardMeter does not have") {
    const ScenarioError e = hf_error(
        "{\"model_type\": \"mpt\", \"d_model\": 64, \"n_layers\": 2, \"n_heads\": 4, \"vocab_size\": 100,\n"
        "\"ffn_config\": {\"ffn_type\": \"mptglu\"}}");
    CHECK(e.key() == "ffn_config.ffn_type");
    CHECK(e.where().line == 2);
  }
  SECTION("MPT: an unknown attn_config field") {
    const ScenarioError e = hf_error(
        "{\"model_type\": \"mpt\", \"d_model\": 64, \"n_layers\": 2, \"n_heads\": 4, \"vocab_size\": 100,\n"
        "\"attn_config\": {\"mystery\": 1}}");
    CHECK(e.key() == "attn_config.mystery");
    CHECK(e.problem().find("cannot map") != std::string::npos);
  }
  SECTION("a missing file") {
    const ScenarioError e = scenario_error("{hf_config: " + kHf + "nope.json, seq_len: 8}");
    CHECK(e.where().file == kHf + "nope.json");
    CHECK(e.problem().find("cannot be read") == 0);
  }
}
