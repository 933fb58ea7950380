#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/spec/estimate_warnings.hpp"
#include "results/export/deployment.hpp"
#include "results/export/export_formats.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/row_layout.hpp"
#include "results/front/row_decoder.hpp"
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
  results::Deployment plan;
  explicit Exporter(const PlanPoint& p) {
    const std::vector<results::PlanPoint> points{test::plan_point(p)};
    row = results::RowLayout::fit(points, info.axes).row(points[0]);
    // The keys no column holds (an MoE row's router, capacity factor, MLA ranks, moe_recompute; any model's YaRN
    // factor and sliding window) come from the rebuilt scenario (the CLI rebuilds it from the front file); here the
    // scenario is the one the row was made from.
    scenario = points[0].scenario;
    decode();
  }
  model::Scenario scenario;
  // The row decoded again (after a test changed its cells), as the CLI decodes it once.
  void decode() { plan = results::make_deployment(results::decode_row(row, 0, &scenario)); }
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

TEST_CASE("tp_dgrad_overlap: the file carries it, Megatron runs it by default, the others refuse it", "[export]") {
  PlanPoint p;   // 512 x h100, tp 8 pp 4, zero1
  p.tp_dgrad_overlap = true;
  const Exporter e(p);
  const nlohmann::json j = nlohmann::json::parse(e.run(results::ExportFormat::plan_json).text);
  CHECK(j["plan"]["tp_dgrad_overlap"] == true);
  // Megatron-LM core_v0.19.0 always overlaps the column-parallel dgrad all-reduce (tensor_parallel/layers.py,
  // LinearWithGradAccumulationAndAsyncCommunication): no flag, the same arguments as without it.
  PlanPoint off = p;
  off.tp_dgrad_overlap = false;
  CHECK(Exporter(off).run(results::ExportFormat::megatron).text == e.run(results::ExportFormat::megatron).text);
  CHECK(export_error(e, results::ExportFormat::deepspeed).find("tp_dgrad_overlap true") != std::string::npos);
  PlanPoint fsdp = p;   // torchtitan needs FSDP, not zero1, to get as far as this check
  fsdp.sharding = m::Sharding::fsdp;
  CHECK(export_error(Exporter(fsdp), results::ExportFormat::torchtitan).find("tp_dgrad_overlap true (Megatron") !=
        std::string::npos);
  fsdp.tp_dgrad_overlap = false;
  CHECK(export_error(Exporter(fsdp), results::ExportFormat::torchtitan).empty());
}

TEST_CASE("tp_comm_overlap: torchtitan (async TP needs torch.compile) and DeepSpeed refuse it", "[export]") {
  PlanPoint p;   // 512 x h100, tp 8 pp 4
  p.sharding = m::Sharding::fsdp;
  p.tp_comm_overlap = true;
  const Exporter e(p);
  CHECK(export_error(e, results::ExportFormat::torchtitan).find("tp_comm_overlap true: torchtitan overlaps") !=
        std::string::npos);
  CHECK(export_error(e, results::ExportFormat::torchtitan_py).find("tp_comm_overlap true") != std::string::npos);
  CHECK(export_error(e, results::ExportFormat::deepspeed).find("tp_comm_overlap true") != std::string::npos);
  CHECK(export_error(e, results::ExportFormat::megatron).empty());
  p.tp_comm_overlap = false;
  CHECK(export_error(Exporter(p), results::ExportFormat::torchtitan).empty());
}

TEST_CASE("plan-json carries the plan, the islands' rank ranges and the predicted metrics", "[export]") {
  PlanPoint p;   // 512 x h100, tp 8 pp 4: dp 16, 512 / (1 x 16) = 32 micro-batches
  const Exporter e(p);
  const nlohmann::json j = nlohmann::json::parse(e.run(results::ExportFormat::plan_json).text);
  CHECK(j["schema_version"] == 2);
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
    // 80 layers / 4 stages = 20 each; the embedding and the head count as no layers, so torchtitan builds
    // ceil((80 + 0 + 0) / 20) = 4 stages, one per rank.
    CHECK(num(par, "pipeline_parallel_layers_per_stage") == 20);
    CHECK(num(par, "pipeline_parallel_first_stage_less_layers") == 0);
    CHECK(num(par, "pipeline_parallel_last_stage_less_layers") == 0);
    CHECK(t.at("model").at("flavor") == "\"70B\"");
    const auto& tr = t.at("training");
    CHECK(num(tr, "local_batch_size") == 32);
    CHECK(num(tr, "global_batch_size") == 512);
    CHECK(num(tr, "local_batch_size") * 16 == num(tr, "global_batch_size"));
    CHECK(num(tr, "seq_len") == 8192);
    // The plan's selective is Megatron's core-attention recompute, which FlashAttention already does.
    CHECK(t.at("activation_checkpoint").at("mode") == "\"none\"");
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

TEST_CASE("torchtitan: pipeline stages with interleaving and with uneven first and last stages", "[export][torchtitan]") {
  SECTION("96 layers on pp 4 with 3 virtual stages per rank: 12 stages of 8 layers, the weights 0") {
    PlanPoint p;   // the issue's example: with the default weights of 1, ceil(98 / 8) = 13 stages, not 12
    p.sharding = m::Sharding::fsdp;
    p.layers = 96;
    p.interleave = 3;
    p.global_batch = 512;   // 32 micro-batches per replica, a multiple of pp = 4
    const auto t = toml_keys(Exporter(p).run(results::ExportFormat::torchtitan).text);
    const auto& par = t.at("parallelism");
    CHECK(par.at("pipeline_parallel_schedule") == "\"Interleaved1F1B\"");
    CHECK(num(par, "pipeline_parallel_layers_per_stage") == 8);   // 96 / (4 x 3)
    CHECK(num(par, "pipeline_parallel_first_stage_less_layers") == 0);
    CHECK(num(par, "pipeline_parallel_last_stage_less_layers") == 0);
    CHECK(t.count("model") == 0);   // 96 layers, hidden 8192: no llama3 flavor
  }
  SECTION("Llama-3-405B, 126 layers on pp 16: stages of 8, the embedding and the head count as one layer each") {
    PlanPoint p;
    p.sharding = m::Sharding::fsdp;
    p.layers = 126;
    p.hidden = 16384;
    p.heads = 128;
    p.pp = 16;
    p.pp_embedding_layers = 1;
    p.pp_head_layers = 1;
    p.gpus = 1024;
    p.global_batch = 1024;
    const auto t = toml_keys(Exporter(p).run(results::ExportFormat::torchtitan).text);
    const auto& par = t.at("parallelism");
    // The plan's weights of 1: torchtitan builds ceil((126 + 1 + 1) / 8) = 16 stages of 8 effective layers:
    // 7 + 8 x 14 + 7 = 126 blocks, the model's ranks.
    CHECK(num(par, "pipeline_parallel_layers_per_stage") == 8);
    CHECK(num(par, "pipeline_parallel_first_stage_less_layers") == 1);
    CHECK(num(par, "pipeline_parallel_last_stage_less_layers") == 1);
    CHECK(t.at("model").at("flavor") == "\"405B\"");
  }
  SECTION("126 layers on pp 16 without weights: torchtitan's own split, 8 x 14 then 7, 7") {
    PlanPoint p;
    p.sharding = m::Sharding::fsdp;
    p.layers = 126;
    p.hidden = 16384;
    p.heads = 128;
    p.pp = 16;
    p.gpus = 1024;
    p.global_batch = 1024;
    const auto t = toml_keys(Exporter(p).run(results::ExportFormat::torchtitan).text);
    const auto& par = t.at("parallelism");
    // ceil(126 / 8) = 16 stages; 126 = 16 x 7 + 14, the first 14 stages take one more.
    CHECK(num(par, "pipeline_parallel_layers_per_stage") == 8);
    CHECK(num(par, "pipeline_parallel_first_stage_less_layers") == 0);
    CHECK(num(par, "pipeline_parallel_last_stage_less_layers") == 0);
  }
  SECTION("Megatron's explicit first / last counts are refused: torchtitan has no such split") {
    PlanPoint p;
    p.sharding = m::Sharding::fsdp;
    p.layers = 126;
    p.pp = 16;
    p.pp_first_stage_layers = 7;
    p.pp_last_stage_layers = 7;
    p.gpus = 1024;
    p.global_batch = 1024;
    CHECK_THAT(export_error(Exporter(p), results::ExportFormat::torchtitan),
               Catch::Contains("explicit first / last stage counts"));
  }
}

TEST_CASE("megatron: Llama-3-405B's 126 layers on pp 16 as the plan splits them", "[export][megatron]") {
  PlanPoint p;
  p.layers = 126;
  p.hidden = 16384;
  p.heads = 128;
  p.pp = 16;
  p.gpus = 1024;
  p.global_batch = 1024;
  SECTION("explicit first and last stages: Megatron's own flags") {
    p.pp_first_stage_layers = 7;
    p.pp_last_stage_layers = 7;
    const auto a = megatron_args(Exporter(p).run(results::ExportFormat::megatron).text);
    // 126 - 7 - 7 = 112 = 14 x 8 on the middle ranks.
    CHECK(a.at("--decoder-first-pipeline-num-layers") == "7");
    CHECK(a.at("--decoder-last-pipeline-num-layers") == "7");
    CHECK(a.count("--pipeline-model-parallel-layout") == 0);
    CHECK(a.at("--num-layers") == "126");
    CHECK(a.at("--hidden-size") == "16384");
    CHECK(a.at("--num-query-groups") == "8");
  }
  SECTION("the embedding and the head counted as layers, interleaved v 8: Megatron's accounting flags") {
    p.pp_embedding_layers = 1;
    p.pp_head_layers = 1;
    p.interleave = 8;
    p.global_batch = 2048;   // 32 micro-batches per replica, a multiple of pp
    const auto a = megatron_args(Exporter(p).run(results::ExportFormat::megatron).text);
    // (126 + 1 + 1) / 16 = 8 per rank, 1 per virtual stage: divisible, so no layout string is needed.
    CHECK(a.count("--account-for-embedding-in-pipeline-split") == 1);
    CHECK(a.count("--account-for-loss-in-pipeline-split") == 1);
    CHECK(a.at("--num-virtual-stages-per-pipeline-rank") == "8");
    CHECK(a.count("--decoder-first-pipeline-num-layers") == 0);
  }
  SECTION("the balanced split without weights: a layout, the first 14 ranks 8 layers, the last two 7") {
    const auto a = megatron_args(Exporter(p).run(results::ExportFormat::megatron).text);
    CHECK(a.at("--pipeline-model-parallel-layout") ==
          "'Et*8|t*8|t*8|t*8|t*8|t*8|t*8|t*8|t*8|t*8|t*8|t*8|t*8|t*8|t*7|t*7L'");
    CHECK(a.count("--num-virtual-stages-per-pipeline-rank") == 0);
  }
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
  CHECK(a.at("--num-virtual-stages-per-pipeline-rank") == "2");
  CHECK(a.count("--decoder-first-pipeline-num-layers") == 0);   // 80 layers divide into 4 x 2 stages of 10
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
  // TP 8 without Megatron-FSDP on H100 (before Blackwell): arguments.py asserts CUDA_DEVICE_MAX_CONNECTIONS=1.
  CHECK(out.text.find("export CUDA_DEVICE_MAX_CONNECTIONS=1") != std::string::npos);
  CHECK(out.text.find("# target: Megatron-LM core_v0.19.0") != std::string::npos);
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

  PlanPoint autotp = p;   // AutoTP: DeepSpeed divides by the whole world, so train_batch_size is left to it
  autotp.tp = 2;
  autotp.sharding = m::Sharding::zero1;
  // AutoTP has no sequence parallelism: a plan costed with it is refused (found by the import round trip).
  CHECK_THAT(export_error(Exporter(autotp), results::ExportFormat::deepspeed),
             Catch::Contains("sequence parallelism with tp = 2"));
  autotp.sequence_parallel = false;
  const nlohmann::json r = nlohmann::json::parse(Exporter(autotp).run(results::ExportFormat::deepspeed).text);
  CHECK_FALSE(r.contains("train_batch_size"));
  CHECK(r["tensor_parallel"]["autotp_size"] == 2);
  CHECK(r["gradient_accumulation_steps"] == 16);   // 1024 / (2 x 32 replicas)

  PlanPoint hsdp = p;   // hsdp: ZeRO-3 with MiCS shard groups of 16 GPUs
  hsdp.sharding = m::Sharding::hsdp;
  hsdp.shard_group = 16;
  const nlohmann::json h = nlohmann::json::parse(Exporter(hsdp).run(results::ExportFormat::deepspeed).text);
  CHECK(h["zero_optimization"]["stage"] == 3);
  CHECK(h["zero_optimization"]["mics_shard_size"] == 16);
}

TEST_CASE("deepspeed cannot express hsdp with tp, pp with FSDP, context parallelism or DiLoCo", "[export][deepspeed]") {
  PlanPoint hsdp;
  hsdp.tp = 2;
  hsdp.pp = 1;
  hsdp.sequence_parallel = false;
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

TEST_CASE("DiLoCo is one job per island: single-job formats refuse it, torchtitan runs it under TorchFT", "[export][diloco]") {
  PlanPoint p;
  p.sync = m::SyncMode::diloco;
  p.gpus = 256;
  p.count = 2;
  p.sharding = m::Sharding::fsdp;
  p.fragments = 4;
  p.overlap_steps = 2;
  const Exporter e(p);
  for (const auto f : {results::ExportFormat::megatron, results::ExportFormat::deepspeed, results::ExportFormat::torchrun}) {
    INFO(results::to_string(f));
    CHECK_THAT(export_error(e, f), Catch::Contains(std::string(results::to_string(f)) +
                                                            " cannot express this plan: DiLoCo"));
  }
  CHECK_THAT(export_error(e, results::ExportFormat::torchtitan_py), Catch::Contains("experiments/torchft"));
  // TorchFT DiLoCo in v0.2.2: the DiLoCo fields need the custom config module; one replica group per island; the
  // global batch is the batch over every group (TorchFT divides by the groups: 512 / (1 x 64 x 2) = 4 steps).
  const std::string text = e.run(results::ExportFormat::torchtitan).text;
  const auto t = toml_keys(text);
  CHECK(t.at("job").at("custom_config_module") == "\"torchtitan.components.ft.config\"");
  CHECK(t.at("model").at("name") == "\"llama3_ft\"");
  CHECK(t.at("fault_tolerance").at("semi_sync_method") == "\"diloco\"");
  CHECK(num(t.at("fault_tolerance"), "group_size") == 2);
  CHECK(num(t.at("fault_tolerance"), "sync_steps") == 100);
  CHECK(num(t.at("fault_tolerance"), "num_fragments") == 4);   // Streaming DiLoCo
  CHECK(num(t.at("fault_tolerance"), "fragment_sync_delay") == 2);
  CHECK(num(t.at("training"), "global_batch_size") == 512);
  CHECK(num(t.at("parallelism"), "data_parallel_shard_degree") * 8 * 4 == 256);
  // plan-json always works.
  const nlohmann::json j = nlohmann::json::parse(e.run(results::ExportFormat::plan_json).text);
  CHECK(j["job"]["jobs"] == 2);
  CHECK(j["plan"]["diloco"]["fragments"] == 4);
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
  PlanPoint out_of_memory = sync;   // the cheapest and the fastest row, but it does not fit: never picked
  out_of_memory.feasible = false;
  out_of_memory.cost_usd = 5e5;
  out_of_memory.tokens_per_s = 3e6;
  const std::vector<results::PlanPoint> points{test::plan_point(out_of_memory), test::plan_point(sync),
                                               test::plan_point(diloco)};
  results::write_front(dir / "front.h5", test::front_run_info("cli"), points);
  const std::string d = dir.path().string();

  const auto ok = testing::run_shardmeter("export front.h5 --pick cheapest --format deepspeed -o ds.json", d);
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(nlohmann::json::parse(testing::read_text(dir / "ds.json"))["zero_optimization"]["stage"] == 3);

  const auto infeasible = testing::run_shardmeter("export front.h5 --pick 1 --format deepspeed -o no.json", d);
  CHECK(infeasible.status == 2);
  CHECK_THAT(infeasible.err, Catch::Contains("row 1 cannot be deployed: it is not feasible (out_of_memory)"));
  CHECK_FALSE(std::filesystem::exists(dir / "no.json"));

  const auto refused = testing::run_shardmeter("export front.h5 --pick 3 --format deepspeed -o no.json", d);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("deepspeed cannot express this plan: DiLoCo"));
  CHECK_FALSE(std::filesystem::exists(dir / "no.json"));

  const auto to_stdout = testing::run_shardmeter("export front.h5 --pick fastest --format plan-json", d);
  CHECK(to_stdout.status == 0);
  CHECK(nlohmann::json::parse(to_stdout.out)["plan"]["sync"] == "diloco");
  CHECK(nlohmann::json::parse(to_stdout.out)["source"]["row"] == 3);

  const auto bad_pick = testing::run_shardmeter("export front.h5 --pick 7 --format plan-json", d);
  CHECK(bad_pick.status == 2);
  CHECK_THAT(bad_pick.err, Catch::Contains("rows 1 to 3"));
  const auto zero = testing::run_shardmeter("export front.h5 --pick 0 --format plan-json", d);
  CHECK(zero.status == 2);   // rows are numbered from 1 everywhere
  const auto bad_format = testing::run_shardmeter("export front.h5 --format torchtitn", d);
  CHECK(bad_format.status == 2);
  CHECK_THAT(bad_format.err, Catch::Contains("did you mean torchtitan"));
}

namespace {

// DeepSeek-V3's shape (scenarios/models/deepseek-v3.yaml) on the shipped scenario's plan without EP overlap: 1024 GPUs,
// tp 2, pp 8 (61 layers: uneven end stages), EP 64, DeepEP, MoE-layer recompute.
PlanPoint deepseek_v3() {
  PlanPoint p;
  p.layers = 61;
  p.hidden = 7168;
  p.heads = 128;
  p.kv_heads = 128;
  p.head_dim = 128;
  p.ffn_hidden = 18432;
  p.seq_len = 4096;
  p.moe.experts = 256;
  p.moe.top_k = 8;
  p.moe.shared_experts = 1;
  p.moe.expert_ffn_hidden = 2048;
  p.moe.shared_expert_ffn_hidden = 2048;
  p.moe.dense_layers = 3;
  p.moe.router = m::MoeRouter::sigmoid;
  p.mla = {1536, 512, 64, 128};
  p.gpus = 1024;
  p.tp = 2;
  p.pp = 8;
  p.ep = 64;
  p.ep_dispatcher = m::EpDispatcher::deepep;
  p.moe_recompute = m::MoeRecompute::layer;
  p.global_batch = 8192;
  return p;
}

// Qwen3-30B-A3B (scenarios/qwen3-30b-a3b-node.yaml): one 8-GPU node, EP 8, full recompute.
PlanPoint qwen3_node() {
  PlanPoint p;
  p.layers = 48;
  p.hidden = 2048;
  p.heads = 32;
  p.kv_heads = 4;
  p.head_dim = 128;
  p.ffn_hidden = 6144;
  p.seq_len = 4096;
  p.moe.experts = 128;
  p.moe.top_k = 8;
  p.moe.expert_ffn_hidden = 768;
  p.moe.shared_expert_ffn_hidden = 768;
  p.gpus = 8;
  p.tp = 1;
  p.pp = 1;
  p.ep = 8;
  p.recompute = m::Recompute::full;
  p.global_batch = 256;
  return p;
}

// Mixtral's experts with a capacity factor, every other block MoE after one dense block, interleaved pipeline and EP
// overlap (Megatron needs virtual stages for it), moe_act recompute.
PlanPoint mixtral_capacity() {
  PlanPoint p;
  p.layers = 32;
  p.hidden = 4096;
  p.heads = 32;
  p.kv_heads = 8;
  p.ffn_hidden = 14336;
  p.seq_len = 4096;
  p.moe.experts = 8;
  p.moe.top_k = 2;
  p.moe.expert_ffn_hidden = 14336;
  p.moe.shared_expert_ffn_hidden = 14336;
  p.moe.dense_layers = 1;
  p.moe.moe_every = 2;
  p.moe.capacity_factor = 1.25;
  p.gpus = 128;
  p.tp = 2;
  p.pp = 4;
  p.interleave = 2;
  p.ep = 8;
  p.ep_overlap = true;
  p.moe_recompute = m::MoeRecompute::activation;
  p.global_batch = 512;
  return p;
}

}  // namespace

TEST_CASE("megatron: an MoE plan's expert flags, MLA and the parallel folding", "[export][megatron][moe]") {
  SECTION("DeepSeek-V3: 256 experts on EP 64, 3 dense blocks, sigmoid router, MLA, DeepEP") {
    const Exporter e(deepseek_v3());
    const std::string text = e.run(results::ExportFormat::megatron).text;
    const auto a = megatron_args(text);
    CHECK(a.at("--num-experts") == "256");
    CHECK(a.at("--moe-router-topk") == "8");
    CHECK(a.at("--moe-ffn-hidden-size") == "2048");
    CHECK(a.at("--ffn-hidden-size") == "18432");   // the 3 dense blocks
    CHECK(a.at("--moe-shared-expert-intermediate-size") == "2048");   // 1 shared x 2048
    CHECK(a.at("--moe-layer-freq") == "\"([0]*3+[1]*58)\"");        // 3 dense + 58 MoE = 61 blocks
    CHECK(a.count("--moe-grouped-gemm") == 1);
    CHECK(a.at("--moe-router-score-function") == "sigmoid");
    CHECK(a.count("--moe-router-enable-expert-bias") == 1);
    CHECK(a.count("--moe-expert-capacity-factor") == 0);   // dropless
    CHECK(a.at("--expert-model-parallel-size") == "64");
    CHECK(a.at("--expert-tensor-parallel-size") == "1");
    CHECK(a.at("--moe-token-dispatcher-type") == "flex");
    CHECK(a.at("--moe-flex-dispatcher-backend") == "deepep");
    CHECK(a.count("--overlap-moe-expert-parallel-comm") == 0);
    CHECK(a.at("--recompute-granularity") == "selective");
    CHECK(a.at("--recompute-modules") == "core_attn moe");
    CHECK(a.count("--multi-latent-attention") == 1);
    CHECK(a.at("--q-lora-rank") == "1536");
    CHECK(a.at("--kv-lora-rank") == "512");
    CHECK(a.at("--qk-head-dim") == "128");
    CHECK(a.at("--qk-pos-emb-head-dim") == "64");
    CHECK(a.at("--v-head-dim") == "128");
    CHECK(a.count("--group-query-attention") == 0);   // MLA excludes it
    CHECK(a.count("--kv-channels") == 0);
    CHECK(a.count("--sequence-parallel") == 1);       // MoE with tp 2
    // 1024 GPUs = etp 1 x ep 64 x pp 8 x edp 2; tp 2 x cp 1 x dp 64 = 128 per stage = 64 x 2.
    CHECK_THAT(text, Catch::Contains("world size 1024 = etp 1 x ep 64 x pp 8 x edp 2"));
    CHECK_THAT(text, Catch::Contains("256 routed (top-8) in 58 of 61 blocks"));
  }
  SECTION("every second block after a dense one, capacity factor, EP overlap with virtual stages, moe_act") {
    const auto a = megatron_args(Exporter(mixtral_capacity()).run(results::ExportFormat::megatron).text);
    // 32 blocks: 1 dense, then (MoE, dense) x 15, then MoE: 16 MoE blocks, (32 - 1 + 1) / 2 by hand.
    CHECK(a.at("--moe-layer-freq") == "\"([0]*1+([1]+[0]*1)*15+[1])\"");
    CHECK(a.at("--moe-expert-capacity-factor") == "1.25");
    CHECK(a.at("--moe-token-dispatcher-type") == "alltoall");
    CHECK(a.count("--overlap-moe-expert-parallel-comm") == 1);
    CHECK(a.at("--num-virtual-stages-per-pipeline-rank") == "2");
    CHECK(a.at("--recompute-modules") == "core_attn moe_act");
    CHECK(a.at("--group-query-attention").empty());
    CHECK(a.count("--moe-shared-expert-intermediate-size") == 0);
  }
  SECTION("full recompute takes no MoE modules; EP 8 on one node") {
    const auto a = megatron_args(Exporter(qwen3_node()).run(results::ExportFormat::megatron).text);
    CHECK(a.at("--recompute-granularity") == "full");
    CHECK(a.count("--recompute-modules") == 0);
    CHECK(a.count("--moe-layer-freq") == 0);   // every block is MoE: the default 1
    CHECK(a.at("--expert-model-parallel-size") == "8");
  }
}

TEST_CASE("megatron refuses MoE plans Megatron-LM would not run", "[export][megatron][moe]") {
  PlanPoint p = deepseek_v3();
  SECTION("EP overlap on a pipeline without virtual stages") {
    p.ep_overlap = true;
    p.moe_recompute = m::MoeRecompute::none;
    CHECK_THAT(export_error(Exporter(p), results::ExportFormat::megatron),
               Catch::Contains("virtual_pipeline_model_parallel_size is set when pp > 1"));
  }
  SECTION("EP overlap with the MoE layer recomputed") {
    p.ep_overlap = true;
    p.interleave = 1;
    p.pp = 1;
    CHECK_THAT(export_error(Exporter(p), results::ExportFormat::megatron),
               Catch::Contains("moe recompute module is not allowed"));
  }
  SECTION("MoE with tp > 1 and no sequence parallelism") {
    p.sequence_parallel = false;
    CHECK_THAT(export_error(Exporter(p), results::ExportFormat::megatron), Catch::Contains("moe_layer.py:629-633"));
  }
  SECTION("DeepEP without expert or expert-tensor parallelism") {
    p.ep = 1;
    p.tp = 1;
    CHECK_THAT(export_error(Exporter(p), results::ExportFormat::megatron), Catch::Contains("ETP x EP > 1"));
  }
  SECTION("an MoE row whose scenario could not be rebuilt") {
    const Exporter e(p);
    results::Deployment unknown = e.plan;
    unknown.record.rebuilt = false;
    CHECK_THROWS_WITH(results::export_plan(results::ExportFormat::megatron, unknown,
                                           results::ExportSource{&e.info, &e.row, "front.h5", "knee"}),
                      Catch::Contains("could not be rebuilt"));
  }
}

TEST_CASE("torchtitan, DeepSpeed, torchrun and plan-json carry the expert degrees", "[export][moe]") {
  PlanPoint q = qwen3_node();
  q.sharding = m::Sharding::fsdp;
  SECTION("torchtitan v0.2.2: qwen3 30B-A3B with expert_parallel_degree") {
    const auto t = toml_keys(Exporter(q).run(results::ExportFormat::torchtitan).text);
    CHECK(t.at("model").at("name") == "\"qwen3\"");
    CHECK(t.at("model").at("flavor") == "\"30B-A3B\"");
    CHECK(num(t.at("parallelism"), "expert_parallel_degree") == 8);
    CHECK(num(t.at("parallelism"), "expert_tensor_parallel_degree") == 1);
    CHECK(t.at("parallelism").at("expert_parallel_comm_backend") == "\"standard\"");
  }
  SECTION("torchtitan refuses ETP other than 1 or TP, and main refuses MoE") {
    q.tp = 2;
    q.etp = 4;
    q.ep = 2;
    CHECK_THAT(export_error(Exporter(q), results::ExportFormat::torchtitan), Catch::Contains("ETP = TP or ETP = 1"));
    CHECK_THAT(export_error(Exporter(q), results::ExportFormat::torchtitan_py), Catch::Contains("an MoE model"));
  }
  SECTION("DeepSpeed-MoE: the MoE layer's arguments, refused with ZeRO-3 or shared experts") {
    const nlohmann::json j =
        nlohmann::json::parse(Exporter(qwen3_node()).run(results::ExportFormat::deepspeed).text);
    CHECK(j["shardmeter_moe_layer"]["num_experts"] == 128);
    CHECK(j["shardmeter_moe_layer"]["ep_size"] == 8);
    CHECK(j["shardmeter_moe_layer"]["k"] == 8);
    CHECK(j["shardmeter_moe_layer"]["drop_tokens"] == false);
    CHECK_THAT(export_error(Exporter(q), results::ExportFormat::deepspeed), Catch::Contains("Stage 3"));
    PlanPoint d = deepseek_v3();   // one stage, no TP: what DeepSpeed's dense checks allow
    d.tp = 1;
    d.pp = 1;
    CHECK_THAT(export_error(Exporter(d), results::ExportFormat::deepspeed), Catch::Contains("1 shared experts"));
  }
  SECTION("plan-json and torchrun") {
    const nlohmann::json j = nlohmann::json::parse(Exporter(deepseek_v3()).run(results::ExportFormat::plan_json).text);
    CHECK(j["plan"]["ep"] == 64);
    CHECK(j["plan"]["etp"] == 1);
    CHECK(j["plan"]["ep_dispatcher"] == "deepep");
    CHECK(j["plan"]["moe_recompute"] == "layer");
    CHECK(j["job"]["expert_data_parallel"] == 2);
    CHECK(j["model"]["moe"]["moe_layers"] == 58);
    CHECK(j["model"]["moe"]["router"] == "sigmoid");
    CHECK(j["model"]["mla"]["kv_lora_rank"] == 512);
    CHECK_THAT(Exporter(deepseek_v3()).run(results::ExportFormat::torchrun).text,
               Catch::Contains("# experts: etp 1 x ep 64 x edp 2 per pipeline stage"));
  }
}

TEST_CASE("export headers carry the MoE accuracy warnings of docs/model.md §15.8", "[export][moe]") {
  // Qwen3-30B-A3B on EP 8: 128 / 8 = 16 local experts -> moe_many_local_experts, in the Megatron file and (the
  // row's stack is megatron_te, the scenario default) in plan-json's header.
  const Exporter q(qwen3_node());
  const std::string megatron = q.run(results::ExportFormat::megatron).text;
  CHECK_THAT(megatron, Catch::Contains("# accuracy: 16 or more routed experts per GPU on Megatron-Core") &&
                           Catch::Contains("(moe_many_local_experts)"));
  CHECK_THAT(megatron, !Catch::Contains("moe_unfused_expert_path"));   // no biases, no clamp
  const nlohmann::json j = nlohmann::json::parse(q.run(results::ExportFormat::plan_json).text);
  CHECK_THAT(j["header"].back().get<std::string>(), Catch::StartsWith("accuracy: 16 or more routed experts"));
  // DeepSeek-V3 on EP 64: 4 local experts, no biases -> no accuracy line; a dense plan never has one.
  CHECK_THAT(Exporter(deepseek_v3()).run(results::ExportFormat::megatron).text, !Catch::Contains("# accuracy:"));
  CHECK_THAT(Exporter(PlanPoint{}).run(results::ExportFormat::megatron).text, !Catch::Contains("# accuracy:"));
  // Biased experts (gpt-oss's kind) on EP 64 of 128: only the unfused-path warning.
  PlanPoint b = qwen3_node();
  b.gpus = 64;
  b.ep = 64;
  Exporter biased_exporter(b);
  biased_exporter.plan.record.scenario.model.bias = true;   // the test points have no bias key; gpt-oss's experts carry biases
  const std::string biased = biased_exporter.run(results::ExportFormat::plan_json).text;
  CHECK_THAT(biased, Catch::Contains("(moe_unfused_expert_path)") && !Catch::Contains("(moe_many_local_experts)"));
  CHECK_THAT(biased, !Catch::Contains("(moe_fp8)"));
  // The same plan in fp8: the fp8 MoE warning too (the row's precision column).
  biased_exporter.plan.record.scenario.training.precision = m::Precision::fp8;
  CHECK_THAT(biased_exporter.run(results::ExportFormat::plan_json).text,
             Catch::Contains("(moe_unfused_expert_path)") && Catch::Contains("fp8 mixture-of-experts training") &&
                 Catch::Contains("(moe_fp8)"));
}

TEST_CASE("gpt-oss's clamped experts and YaRN: carried by the header and plan-json, refused by Megatron", "[export][moe]") {
  Exporter e(qwen3_node());
  e.plan.record.scenario.model.moe.activation_clamp = 7;   // from the rebuilt scenario in the CLI (model.expert_activation_clamp)
  e.plan.record.scenario.model.yarn_factor = 32;       // model.yarn_factor
  const nlohmann::json j = nlohmann::json::parse(e.run(results::ExportFormat::plan_json).text);
  CHECK(j["model"]["moe"]["expert_activation_clamp"] == 7.0);
  CHECK(j["model"]["yarn_factor"] == 32.0);
  CHECK_THAT(e.run(results::ExportFormat::torchrun).text,
             Catch::Contains("expert activation clamped at 7; YaRN rotary scaling factor 32"));
  // Megatron-LM could run gpt-oss only with its offset, sinks and windows, which no model key holds.
  CHECK_THAT(export_error(e, results::ExportFormat::megatron),
             Catch::Contains("clamped experts (model.expert_activation_clamp 7, gpt-oss)") &&
                 Catch::Contains("export plan-json"));
  // YaRN alone: its original context length and beta corrections are not keys either.
  e.plan.record.scenario.model.moe.activation_clamp = 0;
  CHECK_THAT(export_error(e, results::ExportFormat::megatron), Catch::Contains("YaRN rotary scaling (model.yarn_factor 32)"));
  // Plain models keep yarn_factor 0 and no clamp in plan-json.
  const nlohmann::json plain = nlohmann::json::parse(Exporter(qwen3_node()).run(results::ExportFormat::plan_json).text);
  CHECK(plain["model"]["yarn_factor"] == 0.0);
  CHECK(plain["model"]["moe"]["expert_activation_clamp"] == 0.0);
}

// Not run by default: ctest runs it (tag [export_fixture]) before tests/python/replay/replay_exports.py, which
// replays each framework version's own checks on these files (and checks that planted old bugs fail them).
TEST_CASE("Write exports for the framework replays", "[.][export_fixture]") {
  const char* env = std::getenv("SHARDMETER_EXPORT_FIXTURE_DIR");
  REQUIRE(env != nullptr);
  const std::filesystem::path dir(env);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::map<std::string, PlanPoint> cases;
  PlanPoint interleaved;   // torchtitan PP with interleaving: 96 layers, pp 4, 3 virtual stages per rank
  interleaved.sharding = m::Sharding::fsdp;
  interleaved.layers = 96;
  interleaved.interleave = 3;
  cases["interleaved"] = interleaved;
  PlanPoint uneven;        // Llama-3-405B, 126 layers on pp 16, the embedding and head counted as a layer each
  uneven.sharding = m::Sharding::fsdp;
  uneven.layers = 126;
  uneven.hidden = 16384;
  uneven.heads = 128;
  uneven.pp = 16;
  uneven.pp_embedding_layers = 1;
  uneven.pp_head_layers = 1;
  uneven.gpus = 1024;
  uneven.global_batch = 1024;
  cases["405b-pp16"] = uneven;
  PlanPoint v8 = uneven;   // the same interleaved with 8 virtual stages per rank (Llama 3 §3.3.2)
  v8.interleave = 8;
  v8.global_batch = 2048;
  cases["405b-pp16-v8"] = v8;
  PlanPoint explicit_stages = uneven;   // Megatron's explicit first / last stage counts, 7 / 8 x 14 / 7
  explicit_stages.pp_embedding_layers = explicit_stages.pp_head_layers = 0;
  explicit_stages.pp_first_stage_layers = explicit_stages.pp_last_stage_layers = 7;
  cases["405b-pp16-explicit"] = explicit_stages;
  PlanPoint balanced = uneven;          // no weights: 8 x 14, 7, 7 (a Megatron layout string)
  balanced.pp_embedding_layers = balanced.pp_head_layers = 0;
  cases["405b-pp16-balanced"] = balanced;
  PlanPoint diloco;        // Streaming DiLoCo over two islands under TorchFT
  diloco.sync = m::SyncMode::diloco;
  diloco.sharding = m::Sharding::fsdp;
  diloco.gpus = 256;
  diloco.count = 2;
  diloco.pp = 1;
  diloco.fragments = 4;
  diloco.outer_bits = 8;
  cases["streaming-diloco"] = diloco;
  PlanPoint autotp;        // DeepSpeed AutoTP: tp 2, ZeRO-1, no sequence parallelism (AutoTP has none)
  autotp.tp = 2;
  autotp.pp = 1;
  autotp.sequence_parallel = false;
  autotp.gpus = 64;
  autotp.global_batch = 1024;
  cases["autotp"] = autotp;
  PlanPoint hsdp;          // hsdp: torchtitan replicate x shard, DeepSpeed MiCS
  hsdp.tp = 1;
  hsdp.pp = 1;
  hsdp.gpus = 64;
  hsdp.sharding = m::Sharding::hsdp;
  hsdp.shard_group = 16;
  hsdp.micro_batch = 2;
  hsdp.global_batch = 1024;
  cases["hsdp"] = hsdp;
  PlanPoint islands;       // one synchronous job over three islands of two entries
  islands.gpus = 64;
  islands.count = 2;
  islands.second = {"h100-sxm", 64};
  islands.tp = 4;
  islands.pp = 2;
  islands.global_batch = 384;   // 192 GPUs / (4 x 2) = 24 replicas, 16 micro-batches each
  cases["islands"] = islands;
  PlanPoint fp8 = interleaved;   // fp8: torchtitan's float8 converter
  fp8.precision = m::Precision::fp8;
  fp8.layers = 80;
  fp8.interleave = 2;
  cases["fp8"] = fp8;
  cases["deepseek-v3"] = deepseek_v3();            // Megatron: MLA, DeepEP, 3 dense blocks, uneven stages
  cases["qwen3-node"] = qwen3_node();              // DeepSpeed-MoE, Megatron on one node
  PlanPoint qwen3_fsdp = qwen3_node();             // torchtitan v0.2.2's qwen3 30B-A3B flavor
  qwen3_fsdp.sharding = m::Sharding::fsdp;
  cases["qwen3-fsdp"] = qwen3_fsdp;
  cases["mixtral-capacity"] = mixtral_capacity();  // capacity factor, layer pattern, EP overlap with virtual stages
  PlanPoint partial = interleaved;   // recompute full on 8 of the 24 blocks per stage (96 layers, pp 4, v 3)
  partial.recompute = m::Recompute::full;
  partial.recompute_layers = 12;
  cases["partial-recompute"] = partial;
  PlanPoint windowed = interleaved;  // sliding windows of 4096 keys on every block but each 4th (Megatron)
  windowed.seq_len = 16384;
  windowed.attention_window = 4096;
  windowed.full_attention_every = 4;
  cases["windowed"] = windowed;
  PlanPoint op_sac = hsdp;           // torchtitan's per-op policy, FSDP2 keeping the weights gathered
  op_sac.sharding = m::Sharding::fsdp;
  op_sac.recompute = m::Recompute::op_selective;
  op_sac.reshard_after_forward = false;
  cases["op-sac"] = op_sac;
  for (const auto& [name, p] : cases) {
    const Exporter e(p);
    std::ofstream(dir / (name + ".plan.json")) << e.run(results::ExportFormat::plan_json).text;
    for (const std::string_view f : results::export_format_names()) {
      const auto format = *results::parse_export_format(f);
      static const std::map<std::string_view, std::string> kExt = {
          {"plan-json", "json"}, {"torchtitan", "toml"}, {"torchtitan-py", "py"},
          {"megatron", "sh"},    {"deepspeed", "json"},  {"torchrun", "sh"}};
      const std::string base = name + "." + std::string(f);
      try {
        const std::string text = e.run(format).text;
        std::ofstream(dir / (base + "." + kExt.at(f))) << text;
      } catch (const results::ExportError& error) {
        std::ofstream(dir / (base + ".refused")) << error.what() << "\n";
      }
    }
  }
  // The cases the issue names must export, not be refused.
  for (const char* must : {"interleaved.torchtitan.toml", "405b-pp16.megatron.sh", "405b-pp16.torchtitan.toml",
                           "405b-pp16-v8.megatron.sh", "405b-pp16-v8.torchtitan.toml", "405b-pp16-explicit.megatron.sh",
                           "405b-pp16-balanced.megatron.sh", "405b-pp16-balanced.torchtitan-py.py",
                           "streaming-diloco.torchtitan.toml", "autotp.deepspeed.json", "hsdp.deepspeed.json",
                           "islands.torchrun.sh", "fp8.torchtitan-py.py", "fp8.torchtitan.toml",
                           "deepseek-v3.megatron.sh", "qwen3-node.megatron.sh", "qwen3-node.deepspeed.json",
                           "qwen3-fsdp.torchtitan.toml", "mixtral-capacity.megatron.sh", "deepseek-v3.torchrun.sh",
                           "partial-recompute.torchtitan.toml", "partial-recompute.megatron.sh",
                           "op-sac.torchtitan.toml", "op-sac.torchtitan-py.py"}) {
    INFO(must);
    CHECK(std::filesystem::exists(dir / must));
  }
}

TEST_CASE("export headers carry the row's model-range warnings and its effective tokens/s", "[export][tokens]") {
  // A dense row whose estimate carried batch_beyond_data (docs/model.md §9.7) and a token efficiency of 0.5.
  Exporter dense(PlanPoint{});
  dense.row["warning_bits"] = static_cast<double>(m::bit(m::Warning::batch_beyond_data));
  dense.row["effective_tokens_per_s"] = results::number(dense.row, "tokens_per_s") * 0.5;
  dense.decode();
  const std::string text = dense.run(results::ExportFormat::megatron).text;
  CHECK_THAT(text, Catch::Contains("# warning: batch token efficiency extrapolated") &&
                       Catch::Contains("(batch_beyond_data)") && Catch::Contains(" effective)"));
  CHECK_THAT(text, !Catch::Contains("# accuracy:"));   // a dense plan has no MoE accuracy line
  // No warning bits: no warning line.
  CHECK_THAT(Exporter(PlanPoint{}).run(results::ExportFormat::megatron).text, !Catch::Contains("# warning:"));
}

TEST_CASE("plan.recompute_modules: megatron writes the modules, torchtitan and deepspeed refuse them (docs/model.md §7.11)",
          "[export][megatron]") {
  PlanPoint p = deepseek_v3();
  p.moe_recompute = m::MoeRecompute::none;   // the parser keeps it in step with the bits (no moe module here)
  p.recompute_modules = (1u << static_cast<unsigned>(m::RecomputeModule::core_attn)) |
                        (1u << static_cast<unsigned>(m::RecomputeModule::layernorm)) |
                        (1u << static_cast<unsigned>(m::RecomputeModule::mla_up_proj));
  const Exporter e(p);
  CHECK(e.plan.recompute_modules_text() == "core_attn layernorm mla_up_proj");
  const auto a = megatron_args(e.run(results::ExportFormat::megatron).text);
  CHECK(a.at("--recompute-granularity") == "selective");
  CHECK(a.at("--recompute-modules") == "core_attn layernorm mla_up_proj");
  const auto j = nlohmann::json::parse(e.run(results::ExportFormat::plan_json).text);
  CHECK(j["plan"]["recompute_modules"] == "core_attn layernorm mla_up_proj");
  // A dense plan with layernorm and mlp: the formats without Megatron's module list refuse and say which.
  PlanPoint dense;
  dense.recompute_modules = (1u << static_cast<unsigned>(m::RecomputeModule::core_attn)) |
                            (1u << static_cast<unsigned>(m::RecomputeModule::layernorm)) |
                            (1u << static_cast<unsigned>(m::RecomputeModule::mlp));
  CHECK(megatron_args(Exporter(dense).run(results::ExportFormat::megatron).text).at("--recompute-modules") ==
        "core_attn mlp layernorm");
  dense.sharding = m::Sharding::fsdp;   // a layout torchtitan and DeepSpeed take otherwise
  dense.tp = 1;
  dense.pp = 1;
  dense.sequence_parallel = false;
  const Exporter x(dense);
  CHECK_THROWS_WITH(x.run(results::ExportFormat::torchtitan), Catch::Contains("plan.recompute_modules mlp layernorm"));
  CHECK_THROWS_WITH(x.run(results::ExportFormat::torchtitan_py), Catch::Contains("plan.recompute_modules mlp layernorm"));
  CHECK_THROWS_WITH(x.run(results::ExportFormat::deepspeed), Catch::Contains("plan.recompute_modules mlp layernorm"));
  // plan.moe_recompute (which a search axis may set) names the MoE module, whatever the bits say.
  p.moe_recompute = m::MoeRecompute::layer;
  CHECK(Exporter(p).plan.recompute_modules_text() == "core_attn layernorm mla_up_proj moe");
  // core_attn and the MoE module alone (what plan.recompute and plan.moe_recompute say) add no plan-json key.
  const Exporter d(deepseek_v3());
  CHECK(d.run(results::ExportFormat::plan_json).text.find("recompute_modules") == std::string::npos);
}
