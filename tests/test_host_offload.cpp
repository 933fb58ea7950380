// Host-memory offload: plan.activation_offload_layers (Megatron --cpu-offloading-num-layers) and
// plan.optimizer_offload_fraction (Megatron HybridDeviceOptimizer, DeepSpeed ZeRO-Offload, FSDP CPU offload), and
// the GPU's host link (docs/model.md §7.15, §7.16).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "model/job/evaluate.hpp"
#include "model/kernels/parameters.hpp"
#include "model/memory/host_offload_memory.hpp"
#include "model/memory/memory.hpp"
#include "model/parallel/consistency.hpp"
#include "model/parallel/layout.hpp"
#include "model/step/host_offload.hpp"
#include "model_fixtures.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter;
using namespace shardmeter::model;

namespace {

GpuSpec host_gpu(double gbps) {
  GpuSpec g = test::h100_sxm();
  g.host_link_bytes_per_s = gbps * 1e9;
  g.host_link_efficiency = 0.8;
  g.host_adam_params_per_s = 1e9;
  return g;
}

// Llama-3-8B on 8 H100s, DP 8, ZeRO-1 on megatron_te, no recompute, pp 1: the shape activation offload accepts.
Scenario offload_scenario(double host_gbps = 63) {
  Scenario s = test::llama8b_zero1(Precision::bf16, false);
  s.plan.recompute = Recompute::none;
  s.cluster.islands[0].gpu = host_gpu(host_gbps);
  return s;
}

// tests/data/small.yaml (Llama-3-8B on 16 H100s) with `sets` applied, loaded as the CLI loads it.
cli::LoadedScenario load_small(const std::vector<std::string>& sets) {
  std::vector<cli::Override> overrides;
  for (const std::string& text : sets) overrides.push_back(cli::parse_override(text));
  static const std::string path = SHARDMETER_TEST_DATA_DIR "/small.yaml";
  return cli::load_scenario(path, overrides, test::shipped_catalog());
}

}  // namespace

TEST_CASE("activation offload keeps (L - n) of L blocks' activations on the GPU") {
  PlanSpec plan;
  CHECK(activation_kept_share(plan, 32) == 1.0);
  plan.activation_offload_layers = 8;
  CHECK(activation_kept_share(plan, 32) == Approx(0.75));  // (32 - 8) / 32
  plan.activation_offload_layers = 40;
  CHECK(activation_kept_share(plan, 32) == 0.0);           // never negative
}

TEST_CASE("activation offload: only what the host link cannot hide beside L - 1 blocks is exposed") {
  // Host link 50 GB/s x 0.8 = 40e9 B/s; 4e8 bytes per block -> c = 0.01 s; n = 8 copies = 0.08 s per direction.
  // Forward of 32 blocks 0.064 s hides 31/32 x 0.064 = 0.062 s -> 0.018 s exposed; backward 0.128 s hides
  // 0.124 s -> 0. Total 0.018 s.
  const GpuSpec gpu = host_gpu(50);
  CHECK(activation_offload_exposed_s(4e8, 8, 32, 0.064, 0.128, gpu) == Approx(0.018));
  CHECK(activation_offload_exposed_s(4e8, 0, 32, 0.064, 0.128, gpu) == 0.0);
  // Twice the link: 0.04 s of copies, hidden by both passes.
  CHECK(activation_offload_exposed_s(4e8, 8, 32, 0.064, 0.128, host_gpu(100)) == 0.0);
}

TEST_CASE("optimizer offload time per framework") {
  // 1e9 parameters, 4-byte gradients out, 2-byte parameters back over 40e9 B/s: d2h 0.1 s, h2d 0.05 s; the host
  // updates 1e9 per second: 1.0 s. Megatron (overlapped per parameter): max = 1.0 s. DeepSpeed with a 0.05 s
  // backward: (0.1 - 0.05) + 1.0 + 0.05 = 1.1 s. FSDP: 0.1 + 1.0 + 0.05 = 1.15 s.
  const GpuSpec gpu = host_gpu(50);
  OptimizerOffloadWork w;
  w.params = 1e9;
  w.grad_bytes_per_param = 4;
  w.param_bytes_per_param = 2;
  w.backward_s = 0.05;
  CHECK(optimizer_offload_s(Stack::megatron_te, w, gpu) == Approx(1.0));
  CHECK(optimizer_offload_s(Stack::deepspeed, w, gpu) == Approx(1.1));
  CHECK(optimizer_offload_s(Stack::torch_fsdp2, w, gpu) == Approx(1.15));
}

TEST_CASE("optimizer offload removes the offloaded share of the model states") {
  MemoryBreakdown mem;
  mem.weights_bytes = 10;
  mem.gradients_bytes = 20;
  mem.optimizer_bytes = 120;
  PlanSpec plan;
  plan.stack = Stack::megatron_te;
  plan.optimizer_offload_fraction = 0.5;
  MemoryBreakdown half = mem;
  remove_offloaded_states(plan, half);
  CHECK(half.optimizer_bytes == Approx(60));  // 120 x (1 - 0.5); weights and gradients stay
  CHECK(half.weights_bytes == 10);
  CHECK(half.gradients_bytes == 20);
  plan.stack = Stack::torch_fsdp2;
  plan.optimizer_offload_fraction = 1;
  MemoryBreakdown all = mem;
  remove_offloaded_states(plan, all);  // FSDP CPU offload: every shard on the host
  CHECK(all.weights_bytes == 0);
  CHECK(all.gradients_bytes == 0);
  CHECK(all.optimizer_bytes == 0);
}

TEST_CASE("evaluate: activation offload lowers the activations by n / L and charges the exposed copies") {
  Scenario s = offload_scenario();
  const Estimate off = evaluate(s);
  s.plan.activation_offload_layers = 8;
  const Estimate on = evaluate(s);
  // Llama-3-8B, 32 blocks, pp 1: 24 of 32 blocks' activations stay.
  CHECK(on.memory.activations_bytes == Approx(0.75 * off.memory.activations_bytes));
  CHECK(off.time.host_offload_s == 0.0);
  CHECK(on.time.host_offload_s >= 0.0);
  CHECK(on.step_time_s >= off.step_time_s);
  // A host link far too slow to hide anything: every copy is exposed, so the step grows.
  Scenario slow = s;
  slow.cluster.islands[0].gpu.host_link_bytes_per_s = 1e9;
  CHECK(evaluate(slow).time.host_offload_s > 0.0);
}

TEST_CASE("evaluate: optimizer offload moves the optimizer share to the host and charges its step") {
  Scenario s = offload_scenario();
  const Estimate off = evaluate(s);
  s.plan.optimizer_offload_fraction = 1;
  const Estimate on = evaluate(s);
  CHECK(on.memory.optimizer_bytes == 0.0);
  CHECK(on.memory.gradients_bytes == Approx(off.memory.gradients_bytes));
  CHECK(on.time.optimizer_s == 0.0);  // the GPU updates nothing
  // ZeRO-1 over 8 ranks: the GPU owns 1/8 of Llama-3-8B's ~8.03e9 parameters, ~1.0e9, updated at 1e9 per second.
  CHECK(on.time.host_offload_s > 0.9);
  CHECK(on.time.host_offload_s < 1.1);
}

TEST_CASE("properties: more host-link bandwidth is never slower; more offload never more GPU memory") {
  for (const double f : {0.0, 0.25, 0.5, 1.0}) {
    for (const int n : {0, 4, 16, 31}) {
      Scenario s = offload_scenario(8);
      s.plan.activation_offload_layers = n;
      s.plan.optimizer_offload_fraction = f;
      double previous = evaluate(s).step_time_s;
      for (const double gbps : {16.0, 32.0, 63.0, 450.0}) {
        s.cluster.islands[0].gpu.host_link_bytes_per_s = gbps * 1e9;
        const double t = evaluate(s).step_time_s;
        INFO("n " << n << " f " << f << " gbps " << gbps);
        CHECK(t <= previous * (1 + 1e-12));
        previous = t;
      }
    }
  }
  Scenario s = offload_scenario();
  double previous = evaluate(s).memory_per_gpu_bytes;
  for (const int n : {1, 2, 8, 16, 31}) {
    s.plan.activation_offload_layers = n;
    const double bytes = evaluate(s).memory_per_gpu_bytes;
    CHECK(bytes <= previous);
    previous = bytes;
  }
  for (const double f : {0.1, 0.5, 0.9, 1.0}) {
    s.plan.optimizer_offload_fraction = f;
    const double bytes = evaluate(s).memory_per_gpu_bytes;
    CHECK(bytes <= previous);
    previous = bytes;
  }
}

TEST_CASE("offload consistency: what Megatron, DeepSpeed and FSDP refuse") {
  Scenario s = offload_scenario();
  s.plan.activation_offload_layers = 4;
  CHECK(!check_consistency(s));
  auto reason = [](const Scenario& x) { return check_consistency(x).reason; };
  auto other = [](const Scenario& x) { return check_consistency(x).other; };
  Scenario pp = s;
  pp.plan.pp = 2;
  CHECK(reason(pp) == RejectReason::offload_not_supported);
  CHECK(other(pp) == FieldId::plan_pp);
  Scenario rc = s;
  rc.plan.recompute = Recompute::selective;
  CHECK(other(rc) == FieldId::plan_recompute);
  Scenario stack = s;
  stack.plan.stack = Stack::megatron;
  CHECK(other(stack) == FieldId::plan_stack);
  Scenario all = s;
  all.plan.activation_offload_layers = 32;  // every block: Megatron allows at most layers - 1
  CHECK(other(all) == FieldId::model_layers);
  Scenario link = s;
  link.cluster.islands[0].gpu.host_link_bytes_per_s = 0;
  CHECK(other(link) == FieldId::island_gpu_host_link);

  Scenario opt = offload_scenario();
  opt.plan.optimizer_offload_fraction = 0.5;
  CHECK(!check_consistency(opt));
  Scenario ddp = opt;
  ddp.plan.sharding = Sharding::none;
  CHECK(other(ddp) == FieldId::plan_sharding);
  Scenario fsdp = opt;
  fsdp.plan.sharding = Sharding::fsdp;
  fsdp.plan.stack = Stack::torch_fsdp2;
  CHECK(other(fsdp) == FieldId::plan_stack);  // FSDP offloads all or nothing
  fsdp.plan.optimizer_offload_fraction = 1;
  CHECK(!check_consistency(fsdp));
  Scenario fp8 = opt;
  fp8.training.precision = Precision::fp8;
  fp8.training.fp8_params = true;
  fp8.training.fp8_recipe = Fp8Recipe::current;
  CHECK(other(fp8) == FieldId::training_fp8_recipe);
}

TEST_CASE("offload keys load from a scenario file; refusals name the key, the value and the reason") {
  const auto load = load_small;
  const cli::LoadedScenario ok = load({"plan.pp=1", "plan.recompute=none", "plan.activation_offload_layers=4",
                                  "plan.sharding=zero1", "plan.optimizer_offload_fraction=0.5"});
  CHECK(ok.scenario.plan.activation_offload_layers == 4);
  CHECK(ok.scenario.plan.optimizer_offload_fraction == 0.5);
  CHECK(ok.scenario.cluster.islands[0].gpu.host_link_bytes_per_s == Approx(63e9));  // h100-sxm: PCIe Gen5 x16
  CHECK_THROWS_WITH(load({"plan.recompute=none", "plan.activation_offload_layers=4"}),
                    Catch::Contains("plan.activation_offload_layers") && Catch::Contains("needs plan.pp: 1"));
  CHECK_THROWS_WITH(load({"plan.pp=1", "plan.activation_offload_layers=4"}),
                    Catch::Contains("needs plan.recompute: none"));
  CHECK_THROWS_WITH(load({"plan.pp=1", "plan.recompute=none", "plan.activation_offload_layers=4",
                          "cluster.islands.0.host_link_gbps=0"}),
                    Catch::Contains("host_link_gbps"));
  CHECK_THROWS_WITH(load({"plan.optimizer_offload_fraction=1.5"}), Catch::Contains("optimizer_offload_fraction"));
  CHECK_THROWS_WITH(load({"plan.optimizer_offload_fraction=0.5"}), Catch::Contains("needs a sharded optimizer"));
}

TEST_CASE("Megatron-Bridge's GB200 Llama 3 70B BF16 layout fits only with the recipe's activation offload") {
  // Megatron-Bridge scripts/performance llama3 presets (LLAMA3_70B_GB200_BF16_BASE_CONFIG: 64 GPUs, global batch 128,
  // micro-batch 1, Megatron-FSDP, cpu_offloading_num_layers 20; sequence 8192; docs/model.md §7.15). Without the
  // offload 80 blocks' activations need 211 GB of the 186 GB; with 20 of them on the host, 60/80 of them, 166 GB.
  auto load = [](int offloaded) {
    return load_small({"model.preset=llama3-70b", "model.seq_len=8192", "training.global_batch=128",
                       "training.micro_batch=1", "cluster.islands.0.gpu=gb200", "cluster.islands.0.gpus=64",
                       "plan.tp=1", "plan.pp=1", "plan.sharding=fsdp", "plan.stack=megatron_te", "plan.recompute=none",
                       "plan.activation_offload_layers=" + std::to_string(offloaded)});
  };
  const Estimate without = evaluate(load(0).scenario);
  const Estimate with = evaluate(load(20).scenario);
  CHECK_FALSE(without.feasible);
  CHECK(with.feasible);
  CHECK(with.memory.activations_bytes == Approx(0.75 * without.memory.activations_bytes));
  // NVLink-C2C (450 GB/s x 0.8) hides every copy behind the other blocks' compute.
  CHECK(with.time.host_offload_s == 0.0);
}
