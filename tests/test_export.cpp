#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "results/export/deploy_plan.hpp"
#include "results/export/export_formats.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/row_layout.hpp"
#include "tests/report_test_fronts.hpp"
#include "tests/results_test_points.hpp"
#include "tests/run_shardmeter.hpp"

using namespace shardmeter;
using test::PlanPoint;
namespace m = shardmeter::model;

namespace {

struct Exporter {
  results::RunInfo info = test::front_run_info("export-test");
  results::Row row;
  results::DeployPlan plan;
  explicit Exporter(const PlanPoint& p) {
    const std::vector<results::PlanPoint> points{test::plan_point(p)};
    row = results::RowLayout::fit(points, info.axes).row(points[0]);
    plan = results::make_deploy_plan(row, 0);
  }
  results::Exported run(results::ExportFormat f) const {
    return results::export_plan(f, plan, results::ExportSource{&info, &row, "front.h5", "knee"});
  }
};

// TOML as [section] -> key -> value text (comments and blank lines skipped): enough to check the key lines.
std::map<std::string, std::map<std::string, std::string>> toml_keys(const std::string& text) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::istringstream in(text);
  std::string section, line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    const auto eq = line.find(" = ");
    REQUIRE(eq != std::string::npos);
    std::string value = line.substr(eq + 3);
    if (const auto hash = value.find("  #"); hash != std::string::npos) value = value.substr(0, hash);
    out[section][line.substr(0, eq)] = value;
  }
  return out;
}

long long num(const std::map<std::string, std::string>& section, const std::string& key) {
  return std::stoll(section.at(key));
}

// Megatron's array as flag -> value ("" for switches).
std::map<std::string, std::string> megatron_args(const std::string& text) {
  std::map<std::string, std::string> args;
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "MEGATRON_ARGS=(") inside = true;
    else if (line == ")") inside = false;
    else if (inside && line.rfind("  --", 0) == 0) {
      const auto space = line.find(' ', 4);
      args[line.substr(2, space == std::string::npos ? std::string::npos : space - 2)] =
          space == std::string::npos ? "" : line.substr(space + 1);
    }
  }
  return args;
}

std::string export_error(const Exporter& e, results::ExportFormat f) {
  try {
    e.run(f);
  } catch (const results::ExportError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("plan-json carries the plan, the islands' rank ranges and the predicted metrics", "[export]") {
  PlanPoint p;   // 512 x h100, tp 8 pp 4: dp 16, 512 / (1 x 16) = 32 micro-batches
  const Exporter e(p);
  const nlohmann::json j = nlohmann::json::parse(e.run(results::ExportFormat::plan_json).text);
  CHECK(j["schema_version"] == 1);
  CHECK(j["format"] == "shardmeter-plan");
  CHECK(j["plan"]["tp"] == 8);
  CHECK(j["plan"]["sharding"] == "zero1");
  const auto& job = j["job"];
  CHECK(job["world_size"] == 512);
  CHECK(job["data_parallel"] == 16);
  CHECK(job["gradient_accumulation_steps"] == 32);
  CHECK(j["training"]["micro_batch"].get<int>() * job["gradient_accumulation_steps"].get<int>() *
            job["data_parallel"].get<int>() == j["training"]["global_batch"].get<int>());
  CHECK(job["data_parallel_shard"].get<int>() * job["data_parallel_replicate"].get<int>() * j["plan"]["tp"].get<int>() *
            j["plan"]["pp"].get<int>() * j["plan"]["cp"].get<int>() == j["total_gpus"].get<int>());
  REQUIRE(j["islands"].size() == 1);
  CHECK(j["islands"][0]["ranks"]["first"] == 0);
  CHECK(j["islands"][0]["ranks"]["last"] == 511);
  CHECK(j["islands"][0]["nodes"] == 64);
  CHECK(j["predicted"]["tokens_per_s"] == 1e6);
  CHECK(j["units"]["total_cost_usd"] == "USD");
  CHECK(j["source"]["pick"] == "knee");
}

TEST_CASE("plan-json numbers the ranks of a synchronous job island after island", "[export]") {
  PlanPoint p;
  p.gpus = 64;
  p.count = 2;
  p.second = {"h100-sxm", 128};
  p.tp = 4;
  p.pp = 2;
  p.global_batch = 256;
  const nlohmann::json j = nlohmann::json::parse(Exporter(p).run(results::ExportFormat::plan_json).text);
  REQUIRE(j["islands"].size() == 3);
  CHECK(j["islands"][0]["ranks"] == nlohmann::json({{"first", 0}, {"last", 63}}));
  CHECK(j["islands"][1]["ranks"] == nlohmann::json({{"first", 64}, {"last", 127}}));
  CHECK(j["islands"][2]["ranks"] == nlohmann::json({{"first", 128}, {"last", 255}}));
  CHECK(j["islands"][2]["node_ranks"] == nlohmann::json({{"first", 16}, {"last", 31}}));
  CHECK(j["job"]["data_parallel"] == 32);   // 256 GPUs / (4 x 2)
}

TEST_CASE("torchtitan: degrees multiply to the GPUs and the batch arithmetic holds", "[export][torchtitan]") {
  SECTION("fsdp with a pipeline: the per-replica batch is the local batch, split into micro-batches") {
    PlanPoint p;
    p.sharding = m::Sharding::fsdp;
    const auto t = toml_keys(Exporter(p).run(results::ExportFormat::torchtitan).text);
    const auto& par = t.at("parallelism");
    CHECK(num(par, "data_parallel_shard_degree") == 16);
    CHECK(num(par, "data_parallel_replicate_degree") == 1);
    CHECK(num(par, "data_parallel_shard_degree") * num(par, "data_parallel_replicate_degree") *
              num(par, "tensor_parallel_degree") * num(par, "pipeline_parallel_degree") *
              num(par, "context_parallel_degree") == 512);
    CHECK(par.at("pipeline_parallel_schedule") == "\"1F1B\"");
    CHECK(num(par, "pipeline_parallel_microbatch_size") == 1);
    CHECK(num(par, "pipeline_parallel_layers_per_stage") == 20);
    const auto& tr = t.at("training");
    CHECK(num(tr, "local_batch_size") == 32);
    CHECK(num(tr, "global_batch_size") == 512);
    CHECK(num(tr, "local_batch_size") * 16 == num(tr, "global_batch_size"));
    CHECK(num(tr, "seq_len") == 8192);
    CHECK(t.at("activation_checkpoint").at("mode") == "\"selective\"");
  }
  SECTION("hsdp without a pipeline: shard groups of one node, gradient accumulation over micro-batches") {
    PlanPoint p;
    p.sharding = m::Sharding::hsdp;
    p.shard_group = 16;
    p.tp = 2;
    p.pp = 1;
    p.micro_batch = 2;
    p.recompute = m::Recompute::full;
    const auto t = toml_keys(Exporter(p).run(results::ExportFormat::torchtitan).text);
    const auto& par = t.at("parallelism");
    CHECK(num(par, "data_parallel_shard_degree") == 8);      // 16 GPUs / tp 2
    CHECK(num(par, "data_parallel_replicate_degree") == 32);
    CHECK(num(par, "data_parallel_shard_degree") * num(par, "data_parallel_replicate_degree") * 2 == 512);
    const auto& tr = t.at("training");
    CHECK(num(tr, "local_batch_size") == 2);
    CHECK(num(tr, "global_batch_size") % (2 * 256) == 0);   // micro x dp divides the global batch: 1 accumulation step
    CHECK(t.at("activation_checkpoint").at("mode") == "\"full\"");
    CHECK(par.count("pipeline_parallel_schedule") == 0);
  }
}

TEST_CASE("torchtitan cannot express ZeRO-1, fp16 or a synchronous job across islands", "[export][torchtitan]") {
  PlanPoint zero1;
  CHECK_THAT(export_error(Exporter(zero1), results::ExportFormat::torchtitan),
             Catch::Contains("torchtitan cannot express this plan") && Catch::Contains("zero1"));
  PlanPoint islands;
  islands.sharding = m::Sharding::fsdp;
  islands.gpus = 256;
  islands.count = 2;
  CHECK_THAT(export_error(Exporter(islands), results::ExportFormat::torchtitan),
             Catch::Contains("synchronous job across 2 islands"));
  PlanPoint fp16;
  fp16.sharding = m::Sharding::fsdp;
  fp16.precision = m::Precision::fp16;
  CHECK_THAT(export_error(Exporter(fp16), results::ExportFormat::torchtitan), Catch::Contains("fp16"));
}

TEST_CASE("megatron: sizes, batches, recompute and the distributed optimizer", "[export][megatron]") {
  PlanPoint p;
  p.interleave = 2;
  p.recompute = m::Recompute::full;
  const results::Exported out = Exporter(p).run(results::ExportFormat::megatron);
  const auto a = megatron_args(out.text);
  CHECK(a.at("--tensor-model-parallel-size") == "8");
  CHECK(a.at("--pipeline-model-parallel-size") == "4");
  CHECK(a.at("--context-parallel-size") == "1");
  CHECK(a.at("--num-layers-per-virtual-pipeline-stage") == "10");   // 80 layers / (4 x 2)
  CHECK(a.count("--sequence-parallel") == 1);
  CHECK(a.at("--micro-batch-size") == "1");
  CHECK(a.at("--global-batch-size") == "512");
  CHECK(a.at("--recompute-granularity") == "full");
  CHECK(a.at("--recompute-method") == "uniform");
  CHECK(a.count("--use-distributed-optimizer") == 1);
  CHECK(a.count("--bf16") == 1);
  const int dp = 512 / (8 * 4 * 1);
  CHECK(512 % (1 * dp) == 0);   // global = micro x accumulation x dp with a whole number of micro-batches
  CHECK(out.text.find("world size 512 = tp 8 x pp 4 x cp 1 x dp 16; 32 micro-batches") != std::string::npos);
}

TEST_CASE("deepspeed: ZeRO stage and train_batch_size = micro x accumulation x dp", "[export][deepspeed]") {
  PlanPoint p;
  p.tp = 1;
  p.pp = 1;
  p.gpus = 64;
  p.micro_batch = 2;
  p.global_batch = 1024;
  p.sharding = m::Sharding::fsdp;
  const nlohmann::json j = nlohmann::json::parse(Exporter(p).run(results::ExportFormat::deepspeed).text);
  CHECK(j["zero_optimization"]["stage"] == 3);
  CHECK(j["train_micro_batch_size_per_gpu"] == 2);
  CHECK(j["gradient_accumulation_steps"] == 8);
  CHECK(j["train_micro_batch_size_per_gpu"].get<int>() * j["gradient_accumulation_steps"].get<int>() * 64 ==
        j["train_batch_size"].get<int>());
  CHECK(j["bf16"]["enabled"] == true);
  CHECK_FALSE(j.contains("tensor_parallel"));

  PlanPoint pipelined = p;   // pp 4 with ZeRO-1 is fine: stages in the pipeline section
  pipelined.pp = 4;
  pipelined.sharding = m::Sharding::zero1;
  const nlohmann::json q = nlohmann::json::parse(Exporter(pipelined).run(results::ExportFormat::deepspeed).text);
  CHECK(q["pipeline"]["stages"] == 4);
  CHECK(q["zero_optimization"]["stage"] == 1);
  CHECK(q["train_micro_batch_size_per_gpu"].get<int>() * q["gradient_accumulation_steps"].get<int>() * (64 / 4) ==
        q["train_batch_size"].get<int>());
}

TEST_CASE("deepspeed cannot express hsdp, pp with FSDP, context parallelism or DiLoCo", "[export][deepspeed]") {
  PlanPoint hsdp;
  hsdp.tp = 1;
  hsdp.pp = 1;
  hsdp.sharding = m::Sharding::hsdp;
  CHECK_THAT(export_error(Exporter(hsdp), results::ExportFormat::deepspeed),
             Catch::Contains("deepspeed cannot express this plan") && Catch::Contains("hsdp"));
  PlanPoint pp_fsdp;
  pp_fsdp.tp = 1;
  pp_fsdp.sharding = m::Sharding::fsdp;
  CHECK_THAT(export_error(Exporter(pp_fsdp), results::ExportFormat::deepspeed),
             Catch::Contains("pipeline parallelism (pp = 4) with sharding fsdp"));
  PlanPoint cp;
  cp.tp = 1;
  cp.pp = 1;
  cp.cp = 2;
  CHECK_THAT(export_error(Exporter(cp), results::ExportFormat::deepspeed), Catch::Contains("context parallelism"));
}

TEST_CASE("DiLoCo is one job per island: single-job formats refuse it, torchtitan needs the scenario", "[export][diloco]") {
  PlanPoint p;
  p.sync = m::SyncMode::diloco;
  p.gpus = 256;
  p.count = 2;
  p.sharding = m::Sharding::fsdp;
  const Exporter e(p);
  for (const auto f : {results::ExportFormat::megatron, results::ExportFormat::deepspeed, results::ExportFormat::torchrun}) {
    INFO(results::to_string(f));
    CHECK_THAT(export_error(e, f), Catch::Contains(std::string(results::to_string(f)) +
                                                            " cannot express this plan: DiLoCo"));
  }
  CHECK_THAT(export_error(e, results::ExportFormat::torchtitan), Catch::Contains("could not be rebuilt"));
  // With the rebuilt scenario: TorchFT DiLoCo, one replica group per island, each on half the batch.
  Exporter rebuilt(p);
  rebuilt.plan.scenario = test::plan_point(p).scenario;
  const auto t = toml_keys(rebuilt.run(results::ExportFormat::torchtitan).text);
  CHECK(t.at("fault_tolerance").at("semi_sync_method") == "\"diloco\"");
  CHECK(num(t.at("fault_tolerance"), "group_size") == 2);
  CHECK(num(t.at("fault_tolerance"), "sync_steps") == 100);
  CHECK(num(t.at("training"), "global_batch_size") == 256);
  CHECK(num(t.at("parallelism"), "data_parallel_shard_degree") * 8 * 4 == 256);
  // plan-json always works.
  const nlohmann::json j = nlohmann::json::parse(e.run(results::ExportFormat::plan_json).text);
  CHECK(j["job"]["jobs"] == 2);
  CHECK(j["islands"][1]["ranks"]["first"] == 0);   // each island's job numbers its own ranks
}

TEST_CASE("torchrun: one launch line per island with contiguous node ranks", "[export][torchrun]") {
  PlanPoint p;
  p.gpus = 256;
  p.count = 2;
  const std::string text = Exporter(p).run(results::ExportFormat::torchrun).text;
  CHECK(text.find("--nnodes=64 --nproc_per_node=8") != std::string::npos);
  CHECK(text.find("node ranks 0-31, global ranks 0-255") != std::string::npos);
  CHECK(text.find("node ranks 32-63, global ranks 256-511") != std::string::npos);
  CHECK(text.find("  1)\n    exec torchrun") != std::string::npos);
  CHECK(text.rfind("#!/bin/sh\n", 0) == 0);
}

TEST_CASE("shardmeter export: picks, formats, errors with status 2 and no file", "[export][cli]") {
  test::ScratchDir dir;
  PlanPoint sync;
  sync.sharding = m::Sharding::fsdp;
  sync.tp = 1;
  sync.pp = 1;
  PlanPoint diloco = sync;
  diloco.sync = m::SyncMode::diloco;
  diloco.gpus = 256;
  diloco.count = 2;
  diloco.cost_usd = 2e6;
  diloco.tokens_per_s = 2e6;
  const std::vector<results::PlanPoint> points{test::plan_point(sync), test::plan_point(diloco)};
  results::write_front(dir / "front.h5", test::front_run_info("cli"), points);
  const std::string d = dir.path().string();

  const auto ok = testing::run_shardmeter("export front.h5 --pick cheapest --format deepspeed -o ds.json", d);
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(nlohmann::json::parse(testing::read_text(dir / "ds.json"))["zero_optimization"]["stage"] == 3);

  const auto refused = testing::run_shardmeter("export front.h5 --pick 1 --format deepspeed -o no.json", d);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("deepspeed cannot express this plan: DiLoCo"));
  CHECK_FALSE(std::filesystem::exists(dir / "no.json"));

  const auto to_stdout = testing::run_shardmeter("export front.h5 --pick fastest --format plan-json", d);
  CHECK(to_stdout.status == 0);
  CHECK(nlohmann::json::parse(to_stdout.out)["plan"]["sync"] == "diloco");

  const auto bad_pick = testing::run_shardmeter("export front.h5 --pick 7 --format plan-json", d);
  CHECK(bad_pick.status == 2);
  CHECK_THAT(bad_pick.err, Catch::Contains("rows 0 to 1"));
  const auto bad_format = testing::run_shardmeter("export front.h5 --format torchtitn", d);
  CHECK(bad_format.status == 2);
  CHECK_THAT(bad_format.err, Catch::Contains("did you mean torchtitan"));
}

// Not run by default: ctest runs it (tag [export_fixture]) before tests/python/check_exports.py, which parses the
// TOML with Python's tomllib and the JSON files with json.
TEST_CASE("Write exports for the Python parsers", "[.][export_fixture]") {
  const char* env = std::getenv("SHARDMETER_EXPORT_FIXTURE_DIR");
  REQUIRE(env != nullptr);
  const std::filesystem::path dir(env);
  std::filesystem::create_directories(dir);
  PlanPoint p;
  p.sharding = m::Sharding::fsdp;
  p.tp = 4;
  p.pp = 2;
  p.cp = 2;
  p.interleave = 2;
  const Exporter titan(p);
  std::ofstream(dir / "plan.toml") << titan.run(results::ExportFormat::torchtitan).text;
  std::ofstream(dir / "plan.json") << titan.run(results::ExportFormat::plan_json).text;
  PlanPoint ds;
  ds.tp = 1;
  ds.pp = 1;
  ds.gpus = 64;
  ds.micro_batch = 2;
  ds.global_batch = 1024;
  ds.sharding = m::Sharding::zero2;
  std::ofstream(dir / "deepspeed.json") << Exporter(ds).run(results::ExportFormat::deepspeed).text;
}
