// What the exports write besides the layout (issue 30, docs/export.md "Model flags" and "Training length"): the
// warm-up in whole steps, the RoPE base and norm epsilon, and the torchtitan-py target's re-costing without fp8
// all-gathers. Each format's file is read back by its importer (src/import/) where one exists, by its own syntax
// where not.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/job/evaluate.hpp"
#include "model/spec/enum_names.hpp"
#include "results/export/deployment.hpp"
#include "results/front/row_decoder.hpp"
#include "results/export/export_formats.hpp"
#include "results/files/row_layout.hpp"
#include "src/import/deepspeed_config.hpp"
#include "src/import/megatron_args.hpp"
#include "src/import/scenario_merge.hpp"
#include "src/import/torchtitan_toml.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "tests/catalog_fixture.hpp"
#include "tests/report_test_fronts.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;
namespace m = shardmeter::model;
namespace fs = std::filesystem;

namespace {

using Sets = std::vector<std::pair<std::string, std::string>>;

// scenarios/default.yaml (Llama-3-70B on 512 H100) with `sets`, evaluated for real, as a front row with the
// scenario the export rebuilds.
struct RealRow {
  results::RunInfo info = test::front_run_info("schedule-test");
  results::PlanPoint point;
  results::Row row;
  results::Deployment plan;
  explicit RealRow(const Sets& sets) {
    std::vector<cli::Override> overrides;
    for (const auto& [key, value] : sets) overrides.push_back(cli::Override{key, value, key + "=" + value});
    const cli::LoadedScenario loaded =
        cli::load_scenario(SHARDMETER_SOURCE_DIR "/scenarios/default.yaml", overrides, test::shipped_catalog());
    point.scenario = loaded.scenario;
    point.estimate = m::evaluate(loaded.scenario);
    point.labels = {"h100-sxm", std::to_string(loaded.scenario.plan.tp)};
    const std::vector<results::PlanPoint> points{point};
    row = results::RowLayout::fit(points, info.axes).row(points[0]);
    plan = results::make_deployment(results::decode_row(row, 0, &point.scenario));
  }
  results::Exported run(results::ExportFormat f) const {
    return results::export_plan(f, plan, results::ExportSource{&info, &row, "front.h5", "knee"});
  }
};

const cli::ImportedKey& key(const cli::ImportedScenario& s, const std::string& name) {
  const cli::ImportedKey* k = s.find(name);
  INFO(name);
  REQUIRE(k != nullptr);
  return *k;
}

// 512 sequences of 8192 tokens per step; 2000 steps and one token more: 2001 whole steps.
constexpr double kStepTokens = 512.0 * 8192.0;
const std::string kWarmup = fmt::format("{:.17g}", 2000 * kStepTokens + 1);
constexpr double kWarmupWritten = 2001 * kStepTokens;

}  // namespace

TEST_CASE("exports write training.warmup_tokens as whole steps; each file reads back to them", "[export][warmup]") {
  const test::ScratchDir dir;
  SECTION("megatron: --lr-warmup-iters, read back by the import") {
    const RealRow r(Sets{{"training.warmup_tokens", kWarmup}});
    CHECK(r.plan.warmup_steps() == 2001);
    const std::string text = r.run(results::ExportFormat::megatron).text;
    CHECK(text.find("--lr-warmup-iters 2001\n") != std::string::npos);
    const cli::ImportedScenario back = cli::import_megatron(text, "plan.megatron.sh");
    CHECK(std::stod(key(back, "training.warmup_tokens").value) == kWarmupWritten);
  }
  SECTION("torchtitan: [lr_scheduler] warmup_steps (v0.2.2 defaults to 200), read back by the import") {
    const RealRow r(Sets{{"training.warmup_tokens", kWarmup}, {"plan.sharding", "fsdp"}, {"plan.pp", "1"},
                     {"plan.stack", "torch_fsdp2"}});
    const std::string text = r.run(results::ExportFormat::torchtitan).text;
    CHECK(text.find("\n[lr_scheduler]\nwarmup_steps = 2001  #") != std::string::npos);
    const cli::ImportedScenario back = cli::import_torchtitan(text, "plan.toml");
    CHECK(std::stod(key(back, "training.warmup_tokens").value) == kWarmupWritten);
    SECTION("no warm-up is written as 0, not left to torchtitan's 200") {
      const RealRow none(Sets{{"plan.sharding", "fsdp"}, {"plan.pp", "1"}, {"plan.stack", "torch_fsdp2"}});
      const std::string zero = none.run(results::ExportFormat::torchtitan).text;
      CHECK(zero.find("\n[lr_scheduler]\nwarmup_steps = 0  #") != std::string::npos);
      CHECK(std::stod(key(cli::import_torchtitan(zero, "plan.toml"), "training.warmup_tokens").value) == 0);
    }
  }
  SECTION("torchtitan-py: config.lr_scheduler.warmup_steps") {
    const RealRow r(Sets{{"training.warmup_tokens", kWarmup}, {"plan.sharding", "fsdp"}, {"plan.pp", "1"},
                     {"plan.stack", "torch_fsdp2"}});
    const std::string text = r.run(results::ExportFormat::torchtitan_py).text;
    CHECK(text.find("    config.lr_scheduler.warmup_steps = 2001  #") != std::string::npos);
  }
  SECTION("deepspeed: shardmeter_warmup_steps, read back as steps the merge multiplies out") {
    const RealRow r(Sets{{"training.warmup_tokens", kWarmup}, {"plan.sharding", "fsdp"}, {"plan.pp", "1"},
                     {"plan.tp", "1"}, {"plan.sequence_parallel", "false"}, {"plan.stack", "deepspeed"}});
    const results::Exported e = r.run(results::ExportFormat::deepspeed);
    CHECK(nlohmann::json::parse(e.text).at("shardmeter_warmup_steps") == 2001);
    const fs::path file = dir.path() / "ds.json";
    std::ofstream(file) << e.text;
    const cli::ImportedScenario back = cli::import_deepspeed(file.string());
    REQUIRE(back.warmup_from_steps);
    CHECK(back.warmup_from_steps->steps == 2001);
  }
  SECTION("plan-json: training.warmup_tokens and warmup_steps") {
    const RealRow r(Sets{{"training.warmup_tokens", kWarmup}});
    const nlohmann::json j = nlohmann::json::parse(r.run(results::ExportFormat::plan_json).text);
    CHECK(j.at("training").at("warmup_steps") == 2001);
    CHECK(j.at("training").at("warmup_tokens") == 2000 * kStepTokens + 1);
  }
  SECTION("a warm-up longer than the run is capped at the run's steps") {
    // 10 steps' budget; the run trains more (the batch term's token efficiency, docs/model.md §9.7), the warm-up
    // asks for 1000 steps and gets the run's.
    const RealRow r(Sets{{"training.tokens", fmt::format("{:.17g}", 10 * kStepTokens)},
                     {"training.warmup_tokens", fmt::format("{:.17g}", 1000 * kStepTokens)}});
    REQUIRE(r.plan.train_steps() < 1000);
    CHECK(r.plan.warmup_steps() == r.plan.train_steps());
  }
}

TEST_CASE("exports write the model's RoPE base and norm epsilon", "[export][model_flags]") {
  SECTION("megatron: --rotary-base and --norm-epsilon from the preset, read back by the import") {
    const RealRow r(Sets{});   // llama3-70b: rope_theta 500000, norm_eps 1e-5
    const std::string text = r.run(results::ExportFormat::megatron).text;
    CHECK(text.find("  --rotary-base 500000\n") != std::string::npos);
    CHECK(text.find("  --norm-epsilon 1e-05\n") != std::string::npos);
    const cli::ImportedScenario back = cli::import_megatron(text, "plan.megatron.sh");
    CHECK(std::stod(key(back, "model.rope_theta").value) == 500000);
    CHECK(std::stod(key(back, "model.norm_eps").value) == 1e-5);
  }
  SECTION("megatron: another model's values, not Llama 3's") {
    const RealRow r(Sets{{"model.rope_theta", "1000000"}, {"model.norm_eps", "1e-6"}});
    const std::string text = r.run(results::ExportFormat::megatron).text;
    CHECK(text.find("  --rotary-base 1000000\n") != std::string::npos);
    CHECK(text.find("  --norm-epsilon 1e-06\n") != std::string::npos);
  }
  SECTION("plan-json carries both") {
    const RealRow r(Sets{{"model.norm_eps", "1e-6"}});
    const nlohmann::json j = nlohmann::json::parse(r.run(results::ExportFormat::plan_json).text);
    CHECK(j.at("model").at("rope_theta") == 500000.0);
    CHECK(j.at("model").at("norm_eps") == 1e-6);
  }
  SECTION("torchtitan: the flavor fixes them; a model that differs is said in the file and a note") {
    const std::vector<std::pair<std::string, std::string>> fsdp = {
        {"plan.sharding", "fsdp"}, {"plan.pp", "1"}, {"plan.stack", "torch_fsdp2"}};
    const results::Exported same = RealRow(fsdp).run(results::ExportFormat::torchtitan);
    CHECK(same.text.find("flavor 70B trains with") == std::string::npos);
    auto other = fsdp;
    other.push_back({"model.rope_theta", "10000"});
    for (const auto format : {results::ExportFormat::torchtitan, results::ExportFormat::torchtitan_py}) {
      const results::Exported e = RealRow(other).run(format);
      INFO(results::to_string(format));
      CHECK(e.text.find("torchtitan's llama3 flavor 70B trains with rope_theta 500000 where the model has 10000") !=
            std::string::npos);
      CHECK(std::any_of(e.notes.begin(), e.notes.end(),
                        [](const std::string& n) { return n.find("rope_theta 500000 where") != std::string::npos; }));
    }
  }
}

TEST_CASE("torchtitan-py writes fp8 plans without fp8 all-gathers and re-costs them so", "[export][torchtitan][fp8]") {
  const RealRow r(Sets{{"training.precision", "fp8"}, {"training.fp8_params", "true"}, {"plan.sharding", "fsdp"},
                   {"plan.pp", "1"}, {"plan.stack", "torch_fsdp2"}});
  REQUIRE(r.plan.without_fp8_gathers);
  // The re-costed figures are the model's with the key off.
  m::Scenario off = r.point.scenario;
  off.training.fp8_params = false;
  const m::Estimate e = m::evaluate(off);
  CHECK(r.plan.without_fp8_gathers->total_cost_usd == e.total_cost_usd);
  CHECK(r.plan.without_fp8_gathers->tokens_per_s == e.tokens_per_s);
  // fp8 all-gathers move half the bytes of bf16 ones: without them the plan is no faster.
  CHECK(e.tokens_per_s <= r.point.estimate.tokens_per_s);

  const results::Exported py = r.run(results::ExportFormat::torchtitan_py);
  CHECK(py.text.find("# re-costed with training.fp8_params off: torchtitan main@b5bcd76 has no fp8 all-gather") !=
        std::string::npos);
  CHECK(py.text.find("Float8LinearConverter.Config(model_compile_enabled=False)") != std::string::npos);
  CHECK(py.text.find("enable_fsdp_float8_all_gather = ") == std::string::npos);
  // The v0.2.2 TOML spells the gathers, as costed: no re-costing there.
  const results::Exported toml = r.run(results::ExportFormat::torchtitan);
  CHECK(toml.text.find("enable_fsdp_float8_all_gather = true") != std::string::npos);
  CHECK(toml.text.find("re-costed") == std::string::npos);
}

TEST_CASE("exports write host-memory offload where the framework has it and refuse it where not",
          "[export][offload]") {
  // docs/export.md "Host-memory offload"; docs/model.md §7.15, §7.16.
  const RealRow act(Sets{{"plan.pp", "1"}, {"plan.recompute", "none"}, {"plan.activation_offload_layers", "20"}});
  CHECK(act.plan.plan().activation_offload_layers == 20);
  CHECK(act.run(results::ExportFormat::megatron).text.find("--cpu-offloading-num-layers 20\n") != std::string::npos);
  for (const auto f : {results::ExportFormat::torchtitan, results::ExportFormat::torchtitan_py,
                       results::ExportFormat::deepspeed})
    CHECK_THROWS_WITH(act.run(f), Catch::Contains("activation_offload_layers 20"));
  CHECK(act.run(results::ExportFormat::plan_json).text.find("\"activation_offload_layers\": 20") != std::string::npos);

  const RealRow opt(Sets{{"plan.optimizer_offload_fraction", "0.5"}});
  const std::string megatron = opt.run(results::ExportFormat::megatron).text;
  CHECK(megatron.find("--optimizer-cpu-offload\n") != std::string::npos);
  CHECK(megatron.find("--optimizer-offload-fraction 0.5\n") != std::string::npos);
  CHECK(megatron.find("--use-precision-aware-optimizer\n") != std::string::npos);
  CHECK_THROWS_WITH(opt.run(results::ExportFormat::torchtitan), Catch::Contains("every FSDP shard"));

  const RealRow ds(Sets{{"plan.pp", "1"}, {"plan.tp", "1"}, {"plan.sequence_parallel", "false"},
                        {"plan.stack", "deepspeed"}, {"plan.optimizer_offload_fraction", "1"}});
  const nlohmann::json j = nlohmann::json::parse(ds.run(results::ExportFormat::deepspeed).text);
  CHECK(j["zero_optimization"]["offload_optimizer"]["device"] == "cpu");
  CHECK(!j["zero_optimization"]["offload_optimizer"].contains("ratio"));

  const RealRow fsdp(Sets{{"plan.pp", "1"}, {"plan.sharding", "fsdp"}, {"plan.stack", "torch_fsdp2"},
                          {"plan.optimizer_offload_fraction", "1"}});
  CHECK(fsdp.run(results::ExportFormat::torchtitan).text.find("enable_cpu_offload = true") != std::string::npos);
}

TEST_CASE("host-memory offload round-trips: each format that writes it reads it back to the same keys and estimate",
          "[export][import][round_trip][offload]") {
  // docs/import.md (the offload rows of each table); docs/export.md "Host-memory offload".
  const test::ScratchDir dir;
  struct Case {
    results::ExportFormat format;
    Sets plan;     // the row's other keys: also the base's --set, so only the import can carry the offload keys
    Sets offload;  // plan.activation_offload_layers / plan.optimizer_offload_fraction
  };
  const Sets ds{{"plan.pp", "1"}, {"plan.tp", "1"}, {"plan.sequence_parallel", "false"}, {"plan.stack", "deepspeed"}};
  Sets ds3 = ds;
  ds3.push_back({"plan.sharding", "fsdp"});
  const std::vector<Case> cases = {
      {results::ExportFormat::megatron, {{"plan.pp", "1"}, {"plan.recompute", "none"}},
       {{"plan.activation_offload_layers", "20"}}},
      {results::ExportFormat::megatron, {}, {{"plan.optimizer_offload_fraction", "0.5"}}},
      {results::ExportFormat::megatron, {{"plan.pp", "1"}, {"plan.recompute", "none"}},
       {{"plan.activation_offload_layers", "1"}, {"plan.optimizer_offload_fraction", "1"}}},
      {results::ExportFormat::deepspeed, ds, {{"plan.optimizer_offload_fraction", "1"}}},
      {results::ExportFormat::deepspeed, ds3, {{"plan.optimizer_offload_fraction", "0.25"}}},
      {results::ExportFormat::torchtitan, {{"plan.pp", "1"}, {"plan.sharding", "fsdp"}, {"plan.stack", "torch_fsdp2"}},
       {{"plan.optimizer_offload_fraction", "1"}}},
  };
  for (const Case& c : cases) {
    Sets all = c.plan;
    all.insert(all.end(), c.offload.begin(), c.offload.end());
    const RealRow r(all);
    INFO(results::to_string(c.format) << " " << c.offload.front().first << " " << c.offload.front().second);
    const std::string text = r.run(c.format).text;
    const fs::path file = dir.path() / "exported";
    std::ofstream(file) << text;
    const cli::ImportedScenario imported =
        c.format == results::ExportFormat::megatron     ? cli::import_megatron(text, file.string())
        : c.format == results::ExportFormat::deepspeed ? cli::import_deepspeed(file.string())
                                                        : cli::import_torchtitan(text, file.string());
    // The keys come back equal, whether the row offloads them or not.
    CHECK(std::stod(key(imported, "plan.activation_offload_layers").value) == r.plan.plan().activation_offload_layers);
    CHECK(std::stod(key(imported, "plan.optimizer_offload_fraction").value) == r.plan.plan().optimizer_offload_fraction);
    CHECK(r.plan.plan().activation_offload_layers + r.plan.plan().optimizer_offload_fraction > 0);
    // And the merged scenario costs the row: the base (scenarios/default.yaml + the row's other keys) has no offload.
    cli::ImportBase base;
    base.scenario_path = SHARDMETER_SOURCE_DIR "/scenarios/default.yaml";
    for (const auto& [k, v] : c.plan) base.overrides.push_back(cli::Override{k, v, k + "=" + v});
    const auto add = [&](const std::string& k, const std::string& v) { base.overrides.push_back(cli::Override{k, v, k + "=" + v}); };
    add("plan.stack", std::string(m::enum_name(r.point.scenario.plan.stack)));
    if (c.format == results::ExportFormat::megatron)
      add("plan.tp_dgrad_overlap", r.point.scenario.plan.tp_dgrad_overlap ? "true" : "false");
    if (c.format == results::ExportFormat::deepspeed && r.point.scenario.training.precision == m::Precision::fp8)
      add("training.precision", "fp8");
    const cli::MergedScenario merged = cli::merge_import(imported, base, test::shipped_catalog());
    CHECK(merged.loaded.scenario.plan.activation_offload_layers == r.point.scenario.plan.activation_offload_layers);
    CHECK(merged.loaded.scenario.plan.optimizer_offload_fraction == r.point.scenario.plan.optimizer_offload_fraction);
    const m::Estimate e = m::evaluate(merged.loaded.scenario);
    INFO(text);
    CHECK(e.step_time_s == Approx(r.point.estimate.step_time_s).epsilon(1e-9));
    CHECK(e.memory_per_gpu_bytes == Approx(r.point.estimate.memory_per_gpu_bytes).epsilon(1e-9));
  }
}
