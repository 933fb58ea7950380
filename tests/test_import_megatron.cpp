// import megatron: the arguments Megatron-LM parses into lists and patterns read back as the model and plan keys
// the export writes them from (results/export/export_megatron.cpp), and shell it cannot see is refused.
#include <catch2/catch.hpp>

#include "src/import/megatron_args.hpp"

using namespace shardmeter::cli;

namespace {

const std::string kBase = "--num-layers 61 --hidden-size 7168 --num-attention-heads 128 --seq-length 4096 "
                          "--global-batch-size 64 --bf16 ";
const std::string kMoe = "--moe-token-dispatcher-type alltoall ";

std::string value(const ImportedScenario& s, const std::string& key) {
  const ImportedKey* k = s.find(key);
  return k == nullptr ? "(unset)" : k->value;
}

ScenarioError error_of(const std::string& args) {
  try {
    import_megatron(args, "args.sh");
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("no error for " << args);
  return ScenarioError({}, "", "", "");
}

}  // namespace

TEST_CASE("megatron: --moe-layer-freq patterns as dense_layers and moe_every", "[import][megatron]") {
  // DeepSeek-V3: the first 3 of 61 blocks dense (the export's pattern for dense_layers 3).
  const ImportedScenario ds = import_megatron(kBase + kMoe + "--num-experts 256 --moe-layer-freq \"([0]*3+[1]*58)\"", "a");
  CHECK(value(ds, "model.dense_layers") == "3");
  CHECK(value(ds, "model.moe_every") == "1");
  // Every other block from the first (the export's ([1]+[0]*1)*30+[1]).
  const ImportedScenario alt = import_megatron(kBase + kMoe + "--num-experts 8 --moe-layer-freq '(([1]+[0]*1)*30+[1])'", "a");
  CHECK(value(alt, "model.dense_layers") == "0");
  CHECK(value(alt, "model.moe_every") == "2");
  CHECK(error_of(kBase + kMoe + "--num-experts 8 --moe-layer-freq '([1]*60+[0])'").problem().find("is not the first blocks "
                                                                                         "dense") == 0);
}

TEST_CASE("megatron: a pipeline layout reads back as the balanced split with embedding and loss weights", "[import][megatron]") {
  // 126 layers on pp 16 with both weights 1: 128 effective layers, 8 per stage, the first and last hold 7.
  std::string layout = "Et*7";
  for (int i = 1; i < 15; ++i) layout += "|t*8";
  layout += "|t*7L";
  const ImportedScenario s = import_megatron("--num-layers 126 --hidden-size 16384 --num-attention-heads 128 "
                                             "--seq-length 8192 --global-batch-size 2048 --bf16 "
                                             "--pipeline-model-parallel-size 16 --pipeline-model-parallel-layout '" +
                                                 layout + "'",
                                             "a");
  CHECK(value(s, "plan.interleave") == "1");
  // Weights 1 and 1 give this split, and so do 1 and 0 (127 effective layers: 15 stages of 8, one of 7); the import
  // takes the smallest weights that reproduce it, which the model splits the same way.
  CHECK(value(s, "plan.pp_embedding_layers") == "1");
  CHECK(value(s, "plan.pp_head_layers") == "0");
  const ScenarioError e = error_of("--num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 8 "
                                   "--global-batch-size 8 --bf16 --pipeline-model-parallel-size 4 "
                                   "--pipeline-model-parallel-layout 'Et*2|t*0|t*2|t*0L'");
  CHECK(e.key() == "--pipeline-model-parallel-layout Et*2|t*0|t*2|t*0L");
  CHECK(e.problem().find("is not the balanced split") == 0);
}

TEST_CASE("megatron: recompute modules, sharding and what cannot be read", "[import][megatron]") {
  const ImportedScenario s = import_megatron(
      kBase + kMoe + "--num-experts 8 --recompute-granularity selective --recompute-modules core_attn moe_act "
              "--use-distributed-optimizer --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads",
      "a");
  CHECK(value(s, "plan.recompute") == "selective");
  CHECK(value(s, "plan.moe_recompute") == "activation");
  CHECK(value(s, "plan.sharding") == "zero2");
  CHECK(value(s, "model.dropout") == "true");  // Megatron's default 0.1
  CHECK(error_of(kBase + "--tensor-model-parallel-size ${TP}").problem().find("expands a shell variable") == 0);
  CHECK(value(import_megatron(kBase + "--data-path ${DATA}", "a"), "plan.tp") == "1");  // a skipped flag may
  CHECK(error_of(kBase + kMoe).problem() == "has no effect without --num-experts");
  CHECK(error_of(kBase + "--recompute-granularity selective --recompute-modules mlp").problem().find("recomputes mlp") ==
        0);
  const ScenarioError twice = error_of(kBase + "--num-layers 62");
  CHECK(twice.where().column == static_cast<int>(kBase.size()) + 1);  // at the second --num-layers
  CHECK(twice.problem().find("is given twice") == 0);
}

TEST_CASE("megatron: hostile values are errors, not crashes or huge allocations", "[import][megatron]") {
  CHECK(error_of(kBase + "--pipeline-model-parallel-size 0 --num-layers-per-virtual-pipeline-stage 2")
            .problem() == "is not from 1 to 2^20");
  CHECK(error_of(kBase + "--kv-channels 99999999999999999999").problem().find("does not give a whole number") == 0);
  CHECK(error_of(kBase + kMoe + "--num-experts 8 --moe-layer-freq '" + std::string(100, '(') + "[1]'")
            .problem() == "nests parentheses deeper than 16");
  CHECK(error_of(kBase + kMoe + "--num-experts 8 --moe-layer-freq '(([1]*100000)*100000)'")
            .problem() == "repeats a term into more than a million blocks");
}


TEST_CASE("megatron: --fp8-recipe delayed, tensorwise and mxfp8 read as fp8_recipe; others are refused",
          "[import][megatron]") {
  const std::string fp8 = kBase + "--fp8-format hybrid --fp8-param-gather ";
  CHECK(value(import_megatron(fp8 + "--fp8-recipe delayed", "a"), "training.fp8_recipe") == "delayed");
  CHECK(value(import_megatron(fp8 + "--fp8-recipe tensorwise", "a"), "training.fp8_recipe") == "current");
  const ImportedScenario mx = import_megatron(fp8 + "--fp8-recipe mxfp8", "a");
  CHECK(value(mx, "training.fp8_recipe") == "mxfp8");
  CHECK(value(mx, "training.fp8_params") == "true");
  CHECK(std::string(error_of(fp8 + "--fp8-recipe blockwise").what()).find("--fp8-recipe") != std::string::npos);
}

TEST_CASE("megatron: CPU offload flags read as the offload keys; what Megatron would not run is refused",
          "[import][megatron][offload]") {
  // docs/import.md, Megatron-LM table; docs/model.md §7.15, §7.16 (core_v0.19.0 arguments.py).
  const ImportedScenario none = import_megatron(kBase, "a");
  CHECK(value(none, "plan.activation_offload_layers") == "0");
  CHECK(value(none, "plan.optimizer_offload_fraction") == "0");
  const std::string opt = "--use-distributed-optimizer --optimizer-cpu-offload --use-precision-aware-optimizer "
                          "--overlap-cpu-optimizer-d2h-h2d ";
  const ImportedScenario s = import_megatron(kBase + "--cpu-offloading-num-layers 20 " + opt +
                                                 "--optimizer-offload-fraction 0.25", "a");
  CHECK(value(s, "plan.activation_offload_layers") == "20");
  CHECK(value(s, "plan.optimizer_offload_fraction") == "0.25");
  CHECK(s.find("plan.optimizer_offload_fraction")->said == "--optimizer-offload-fraction 0.25");
  // --cpu-offloading is implied by the count (A: cpu_offloading_num_layers > 0 sets it); the fraction defaults to 1.
  const ImportedScenario both = import_megatron(kBase + "--cpu-offloading --cpu-offloading-num-layers 4 " + opt, "a");
  CHECK(value(both, "plan.activation_offload_layers") == "4");
  CHECK(value(both, "plan.optimizer_offload_fraction") == "1");

  const ScenarioError on_without_count = error_of(kBase + "--cpu-offloading");
  CHECK(on_without_count.key() == "--cpu-offloading");
  CHECK(on_without_count.where().column == static_cast<int>(kBase.size()) + 1);
  CHECK(on_without_count.problem().find("--cpu-offloading-num-layers 0") != std::string::npos);
  CHECK(error_of(kBase + "--use-distributed-optimizer --optimizer-cpu-offload --overlap-cpu-optimizer-d2h-h2d")
            .problem().find("needs --use-precision-aware-optimizer") == 0);
  CHECK(error_of(kBase + "--use-distributed-optimizer --optimizer-cpu-offload --use-precision-aware-optimizer")
            .problem().find("without --overlap-cpu-optimizer-d2h-h2d") == 0);
  CHECK(error_of(kBase + "--optimizer-offload-fraction 0.5").problem() == "has no effect without --optimizer-cpu-offload");
  CHECK(error_of(kBase + "--overlap-cpu-optimizer-d2h-h2d").problem() == "has no effect without --optimizer-cpu-offload");
  CHECK(error_of(kBase + opt + "--optimizer-offload-fraction 1.5").problem() == "is above 1");
  CHECK(error_of(kBase + opt + "--optimizer-offload-fraction half").problem() == "does not give a number");
  CHECK(error_of(kBase + "--cpu-offloading-num-layers -1").problem().find("does not give a whole number") == 0);
  // Flags of the offload the model does not cost stay unknown flags, refused at their line.
  CHECK(error_of(kBase + opt + "--no-pin-cpu-grads").problem().find("is a Megatron-LM flag the import does not map") == 0);
}
