// Round trips: every row of the shipped search fronts that a format can express is exported, imported back
// (src/import/) on the row's own scenario as base, and estimated; the prediction equals the row's. The base supplies
// only what the format cannot carry (docs/import.md, "Round trips"); the test checks that the import itself sets
// every key the format does carry, so a base value never stands in for a key the importer dropped.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "model/spec/enum_names.hpp"
#include "model/job/evaluate.hpp"
#include "results/export/deployment.hpp"
#include "results/front/row_decoder.hpp"
#include "results/export/export_formats.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/row_layout.hpp"
#include "src/import/deepspeed_config.hpp"
#include "src/import/megatron_args.hpp"
#include "src/import/scenario_merge.hpp"
#include "src/import/torchtitan_toml.hpp"
#include "src/planning/scenario_rebuild.hpp"
#include "tests/catalog_fixture.hpp"
#include "tests/results_test_points.hpp"
#include "tests/run_shardmeter.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;
namespace fs = std::filesystem;
namespace m = shardmeter::model;

namespace {

// Keys each format carries: the import must set every one of them itself.
const std::map<results::ExportFormat, std::vector<std::string>> kCarried = {
    {results::ExportFormat::megatron,
     {"model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.head_dim", "model.ffn_hidden",
      "model.ffn_type", "model.vocab", "model.seq_len", "model.norm", "model.position_embedding", "model.bias",
      "model.tied_embeddings", "model.experts", "model.attention_window", "plan.tp", "plan.pp", "plan.cp",
      "plan.interleave", "plan.sequence_parallel", "plan.sharding", "plan.recompute", "plan.recompute_layers",
      "plan.overlap_grad_reduce", "plan.overlap_param_gather", "plan.tp_comm_overlap", "plan.ep", "plan.etp",
      "plan.pp_embedding_layers", "plan.pp_head_layers", "training.global_batch", "training.micro_batch",
      "training.precision", "model.rope_theta", "model.norm_eps", "training.warmup_tokens",
      "plan.activation_offload_layers", "plan.optimizer_offload_fraction"}},
    {results::ExportFormat::torchtitan,
     {"model.seq_len", "plan.tp", "plan.pp", "plan.cp", "plan.interleave", "plan.sequence_parallel", "plan.sharding",
      "plan.recompute", "plan.sync", "training.global_batch", "training.micro_batch", "training.precision",
      "training.tokens", "training.warmup_tokens", "plan.activation_offload_layers",
      "plan.optimizer_offload_fraction"}},
    {results::ExportFormat::deepspeed,
     {"plan.tp", "plan.pp", "plan.cp", "plan.sharding", "plan.overlap_grad_reduce", "training.micro_batch",
      "training.precision", "plan.activation_offload_layers", "plan.optimizer_offload_fraction"}},
};

struct Trip {
  int exported = 0, refused = 0;
};

// What the base scenario must give because the format cannot (docs/import.md): the stack everywhere; Megatron runs
// the asynchronous dgrad overlap whatever the plan says; DeepSpeed's JSON cannot say fp8.
std::vector<Override> cannot_carry(results::ExportFormat format, const m::Scenario& row_scenario,
                                   const ImportedScenario& imported) {
  std::vector<Override> o;
  const auto set = [&](const std::string& key, const std::string& value) { o.push_back(Override{key, value, key + "=" + value}); };
  set("plan.stack", std::string(m::enum_name(row_scenario.plan.stack)));
  if (format == results::ExportFormat::megatron) {
    CHECK(imported.find("plan.tp_dgrad_overlap")->value == (row_scenario.plan.tp > 1 ? "true" : "false"));
    set("plan.tp_dgrad_overlap", row_scenario.plan.tp_dgrad_overlap ? "true" : "false");
  }
  if (format == results::ExportFormat::deepspeed && row_scenario.training.precision == m::Precision::fp8)
    set("training.precision", "fp8");
  return o;
}

ImportedScenario import_text(results::ExportFormat format, const std::string& text, const fs::path& file) {
  std::ofstream(file) << text;
  switch (format) {
    case results::ExportFormat::megatron: return import_megatron(text, file.string());
    case results::ExportFormat::torchtitan: return import_torchtitan(text, file.string());
    case results::ExportFormat::deepspeed: return import_deepspeed(file.string());
    default: break;
  }
  FAIL("no importer");
  return {};
}

void round_trip(const std::string& scenario, const fs::path& work, std::map<results::ExportFormat, Trip>& trips) {
  const fs::path h5 = work / (fs::path(scenario).stem().string() + ".h5");
  const auto run = testing::run_shardmeter("search '" + scenario + "' --quiet -o '" + h5.string() + "'",
                                           SHARDMETER_SOURCE_DIR);
  REQUIRE(run.status == 0);
  const results::ResultFile file = results::read_front(h5);
  const Catalog& catalog = test::shipped_catalog();
  for (std::size_t i = 0; i < file.front.rows.size(); ++i) {
    const results::Row& row = file.front.rows[i];
    std::string why_not;
    const std::optional<m::Scenario> rebuilt = rebuild_scenario(file.info, row, catalog, why_not);
    REQUIRE(rebuilt);
    results::Deployment plan;
    try {
      std::string disagrees;
      plan = results::make_deployment(results::decode_row(row, i, &*rebuilt, &disagrees));
      REQUIRE(plan.record.rebuilt);
    } catch (const results::ExportError&) {
      continue;  // not feasible: never exported
    }
    // The row's scenario as a file: the base of the import.
    ScenarioDocument doc = scenario_document_from_text("row", file.info.scenario_text);
    for (const std::string& axis : file.info.axes) {
      const std::string& label = results::text(row, results::axis_column_name(axis));
      apply_override(doc, Override{axis, label, axis + "=" + label});
    }
    const fs::path base = work / "base.yaml";
    std::ofstream(base) << effective_text(doc);
    for (const auto& [format, carried] : kCarried) {
      INFO(scenario << " row " << i + 1 << " " << results::to_string(format));
      results::Exported exported;
      try {
        exported = results::export_plan(format, plan, results::ExportSource{&file.info, &row, h5.string(), "row"});
      } catch (const results::ExportError&) {
        ++trips[format].refused;
        continue;
      }
      ++trips[format].exported;
      const ImportedScenario imported = import_text(format, exported.text, work / "exported");
      for (const std::string& key : carried) {
        INFO(key);
        CHECK((imported.find(key) != nullptr || (key == "training.global_batch" && imported.batch_from_world)));
      }
      ImportBase b;
      b.scenario_path = base.string();
      b.overrides = cannot_carry(format, *rebuilt, imported);
      const MergedScenario merged = merge_import(imported, b, catalog);
      const m::Estimate e = m::evaluate(merged.loaded.scenario);
      INFO(exported.text);
      CHECK(e.step_time_s == Approx(results::number(row, "step_time_s")).epsilon(1e-9));
      CHECK(e.tokens_per_s == Approx(results::number(row, "tokens_per_s")).epsilon(1e-9));
      CHECK(e.memory_per_gpu_bytes / m::kGB == Approx(results::number(row, "memory_per_gpu_gb")).epsilon(1e-9));
      // Exports train whole steps of the tokens the row was costed for (Deployment::trained_tokens: the budget over
      // the token efficiency); the import reads back what the file trains: at most one step more.
      const double tokens = merged.loaded.scenario.training.tokens, planned = plan.trained_tokens;
      CHECK(tokens >= planned);
      CHECK(tokens - planned <= static_cast<double>(plan.training().global_batch * plan.model().seq_len));
      // The warm-up comes back in whole steps of the planned one (the shipped scenarios have none: 0 = 0), and
      // Megatron's arguments carry the model's numerics.
      const double warmup = merged.loaded.scenario.training.warmup_tokens;
      CHECK(warmup >= rebuilt->training.warmup_tokens);
      CHECK(warmup - rebuilt->training.warmup_tokens <= static_cast<double>(plan.training().global_batch * plan.model().seq_len));
      if (format == results::ExportFormat::megatron) {
        CHECK(merged.loaded.scenario.model.rope_theta == rebuilt->model.rope_theta);
        CHECK(merged.loaded.scenario.model.norm_eps == rebuilt->model.norm_eps);
      }
      // The written scenario reads back to the same scenario.
      const ScenarioDocument again = scenario_document_from_text("again", merged.yaml);
      CHECK(m::evaluate(load_scenario(again, catalog).scenario).step_time_s == e.step_time_s);
    }
  }
}

}  // namespace

TEST_CASE("round trips: export -> import -> estimate gives every exportable front row's prediction", "[import][round_trip]") {
  const test::ScratchDir dir;
  std::map<results::ExportFormat, Trip> trips;
  for (const char* s : {"scenarios/default.yaml", "scenarios/llama3-8b-finetune.yaml", "scenarios/gpt3-175b-budget.yaml",
                        "scenarios/deepseek-v3-h100.yaml", "scenarios/decentralized-study.yaml",
                        "scenarios/diloco-multiregion.yaml", "scenarios/nightly/llama3-405b-frontier.yaml",
                        "scenarios/nightly/llama3-70b-islands.yaml", "scenarios/nightly/llama3-8b-one-island.yaml"})
    round_trip(s, dir.path(), trips);
  for (const auto& [format, trip] : trips) {
    WARN(results::to_string(format) << ": " << trip.exported << " rows round-tripped, " << trip.refused
                                    << " refused by the export");
    CHECK(trip.exported > 0);
  }
}
