// `shardmeter import`: launch files users hold become scenarios that estimate; bad input exits 2 with the file, line,
// flag or key and value, and writes nothing.
#include <catch2/catch.hpp>

#include <filesystem>

#include "src/import/deepspeed_config.hpp"
#include "tests/results_test_points.hpp"
#include "tests/run_shardmeter.hpp"

using shardmeter::testing::read_text;
using shardmeter::testing::run_shardmeter;
namespace fs = std::filesystem;

namespace {
const std::string kData = SHARDMETER_TEST_DATA_DIR "/import/";
}

TEST_CASE("import megatron: a launch script on 8 nodes, written, read back and estimated", "[import][cli]") {
  const shardmeter::test::ScratchDir dir;
  const std::string out = (dir.path() / "s.yaml").string();
  const auto r = run_shardmeter("import megatron " + kData + "megatron/llama3-8b.sh --gpu h100-sxm --nodes 8 -o " + out);
  REQUIRE(r.status == 0);
  const std::string yaml = read_text(out);
  CHECK(yaml.find("plan.tp = 2  <- " + kData + "megatron/llama3-8b.sh:16:5: --tensor-model-parallel-size 2") !=
        std::string::npos);
  CHECK(yaml.find("training.tokens = 1048576000000") != std::string::npos);  // 250000 iterations x 512 x 8192
  const auto estimate = run_shardmeter("estimate " + out + " --json");
  REQUIRE(estimate.status == 0);
  const auto direct = run_shardmeter("import megatron " + kData + "megatron/llama3-8b.sh --gpu h100-sxm --nodes 8 "
                                     "--estimate --json");
  REQUIRE(direct.status == 0);
  CHECK(direct.out == estimate.out);
  CHECK(estimate.out.find("\"model_layers\": 32") != std::string::npos);
}

TEST_CASE("import torchtitan and deepspeed: a job file and a ZeRO-3 config", "[import][cli]") {
  const auto titan = run_shardmeter("import torchtitan " + kData + "torchtitan/llama3-8b.toml --gpu h100-sxm --gpus 8 "
                                    "--estimate --json");
  REQUIRE(titan.status == 0);
  CHECK(titan.out.find("\"sharding\": \"fsdp\"") != std::string::npos);
  CHECK(titan.out.find("\"recompute\": \"op_selective\"") != std::string::npos);
  const auto ds = run_shardmeter("import deepspeed " + kData + "deepspeed/zero3.json --gpu h100-sxm --nodes 8 "
                                 "--model llama3-8b --estimate --json");
  REQUIRE(ds.status == 0);
  CHECK(ds.out.find("\"sharding\": \"fsdp\"") != std::string::npos);
  CHECK(ds.out.find("\"global_batch\": 512") != std::string::npos);
  // DeepSpeed carries no model: without --model or a base scenario that has one, the import says so.
  const auto no_model = run_shardmeter("import deepspeed " + kData + "deepspeed/zero3.json --gpu h100-sxm --nodes 8");
  CHECK(no_model.status == 2);
  CHECK(no_model.err.find("does not describe the model") != std::string::npos);
}

TEST_CASE("import hf: the model block, each key with its config.json line", "[import][cli][hf]") {
  const auto r = run_shardmeter("import hf " + kData + "hf/llama3-8b.json --seq-len 8192");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("  kv_heads: 8  # " + kData + "hf/llama3-8b.json:17:3: num_key_value_heads = 8") != std::string::npos);
  CHECK(r.out.find("  seq_len: 8192") != std::string::npos);
}

TEST_CASE("import: errors name the place in the imported file, exit 2 and write nothing", "[import][cli]") {
  const shardmeter::test::ScratchDir dir;
  const std::string out = (dir.path() / "s.yaml").string();
  const std::string args = (dir.path() / "args.sh").string();
  std::ofstream(args) << "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096\n"
                         "--global-batch-size 64 --bf16\n"
                         "--tensor-model-parallel-size 3\n"
                         "--frobnicate 7\n";
  SECTION("an unknown flag") {
    const auto r = run_shardmeter("import megatron " + args + " --gpu h100-sxm --nodes 1 -o " + out);
    CHECK(r.status == 2);
    CHECK(r.err.find(args + ":4:1: --frobnicate 7 is a Megatron-LM flag the import does not map") == 0);
    CHECK_FALSE(fs::exists(out));
  }
  SECTION("a value the scenario refuses, reported at the flag") {
    std::ofstream(args, std::ios::trunc) << "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
                                            "--seq-length 4096 --vocab-size 32000\n--global-batch-size 64 --bf16\n"
                                            "--tensor-model-parallel-size 3\n";
    const auto r = run_shardmeter("import megatron " + args + " --gpu h100-sxm --nodes 1 -o " + out);
    CHECK(r.status == 2);
    CHECK(r.err.find(args + ":3:1: --tensor-model-parallel-size 3 (plan.tp = 3): plan.tp = 3 does not divide "
                            "model.heads = 32") == 0);
    CHECK_FALSE(fs::exists(out));
  }
  SECTION("a TOML construct outside the subset") {
    const std::string toml = (dir.path() / "job.toml").string();
    std::ofstream(toml) << "[training]\nglobal_batch_size = 8\n[parallelism]\nmesh = { a = 1 }\n";
    const auto r = run_shardmeter("import torchtitan " + toml + " --gpu h100-sxm --nodes 1 --model llama3-8b");
    CHECK(r.status == 2);
    CHECK(r.err.find(toml + ":4:8: ") == 0);
    CHECK(r.err.find("inline table") != std::string::npos);
  }
  SECTION("a DeepSpeed key that changes the cost and cannot be expressed") {
    const std::string json = (dir.path() / "ds.json").string();
    std::ofstream(json) << "{\n  \"train_batch_size\": 8,\n  \"bf16\": {\"enabled\": true},\n"
                           "  \"zero_optimization\": {\"stage\": 3, \"offload_param\": {\"device\": \"cpu\"}}\n}\n";
    const auto r = run_shardmeter("import deepspeed " + json + " --gpu h100-sxm --nodes 1 --model llama3-8b");
    CHECK(r.status == 2);
    CHECK(r.err.find(json + ":4:55: zero_optimization.offload_param.device = cpu offloads parameters") == 0);
  }
  SECTION("no cluster") {
    const auto r = run_shardmeter("import megatron " + args);
    CHECK(r.status == 2);
    CHECK(r.err.find("name the cluster") != std::string::npos);
  }
}

TEST_CASE("import deepspeed: offload_optimizer reads as plan.optimizer_offload_fraction; NVMe and parameters are "
          "refused at their key", "[import][cli][offload]") {
  // docs/import.md, DeepSpeed table; docs/model.md §7.16.
  const shardmeter::test::ScratchDir dir;
  const std::string json = (dir.path() / "ds.json").string();
  const auto import = [&](const std::string& zero) {
    std::ofstream(json) << "{\n  \"train_batch_size\": 8,\n  \"bf16\": {\"enabled\": true},\n"
                           "  \"zero_optimization\": " << zero << "\n}\n";
    return shardmeter::cli::import_deepspeed(json);
  };
  const auto fraction = [](const shardmeter::cli::ImportedScenario& s) {
    return s.find("plan.optimizer_offload_fraction")->value;
  };
  CHECK(fraction(import(R"({"stage": 1})")) == "0");
  CHECK(import(R"({"stage": 1})").find("plan.activation_offload_layers")->value == "0");
  CHECK(fraction(import(R"({"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": true}})")) == "1");
  CHECK(fraction(import(R"({"stage": 3, "offload_optimizer": {"device": "cpu", "ratio": 0.3}})")) == "0.3");
  CHECK(fraction(import(R"({"stage": 2, "offload_optimizer": {"device": "none"}, "offload_param": {"device": "none"}})")) ==
        "0");
  const auto error = [&](const std::string& zero) -> std::string {
    try {
      import(zero);
    } catch (const shardmeter::cli::ScenarioError& e) {
      return std::to_string(e.where().line) + " " + e.key() + ": " + e.problem();
    }
    return "no error";
  };
  CHECK(error(R"({"stage": 3, "offload_optimizer": {"device": "nvme"}})").find("4 zero_optimization.offload_optimizer."
                                                                               "device: offloads the optimizer to NVMe") == 0);
  CHECK(error(R"({"stage": 2, "offload_optimizer": {"device": "cpu", "ratio": 0.5}})")
            .find("4 zero_optimization.offload_optimizer.ratio: offloads part of the optimizer") == 0);
  CHECK(error(R"({"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": false}})")
            .find("4 zero_optimization.offload_optimizer.pin_memory: is false") == 0);
  CHECK(error(R"({"stage": 0, "offload_optimizer": {"device": "cpu"}})").find("without ZeRO") != std::string::npos);
  CHECK(error(R"({"stage": 3, "offload_optimizer": {"device": "cpu", "ratio": 2}})").find("is above 1") != std::string::npos);
  CHECK(error(R"({"stage": 3, "offload_optimizer": {"device": "gpu"}})").find("is not cpu, nvme or none") != std::string::npos);
  CHECK(error(R"({"stage": 3, "offload_optimizer": {"device": "cpu", "nvme_path": "/x"}})")
            .find("4 zero_optimization.offload_optimizer.nvme_path: is not an offload_optimizer key") == 0);
  CHECK(error(R"({"stage": 3, "offload_param": {"device": "nvme"}})").find("4 zero_optimization.offload_param.device: "
                                                                          "offloads parameters") == 0);
}
