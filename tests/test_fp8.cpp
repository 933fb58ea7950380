// fp8 end to end (docs/model.md §2.2, §1.4): which tensors each stack keeps and moves in fp8, the cast kernels, the
// fp8 GEMM roofline, the memory and traffic terms, the MFU convention and the located rejection. Values worked out
// by hand in the comments.
#include <catch2/catch.hpp>

#include "model/parallel/consistency.hpp"
#include "model/job/evaluate.hpp"
#include "model/parallel/fp8.hpp"
#include "model/kernels/kernel_time.hpp"
#include "model/step/layer_cost.hpp"
#include "model/parallel/layout.hpp"
#include "model/memory/memory.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter::model;
using shardmeter::test::h100_sxm;
using shardmeter::test::llama3_8b;

namespace {

// Llama-3-8B, TP 1, CP 2, one sequence per micro-batch: T = 8192 / 2 = 4096 tokens per GPU.
PlanSpec llama_plan() {
  PlanSpec p;
  p.cp = 2;
  p.recompute = Recompute::none;
  p.stack = Stack::megatron_te;
  return p;
}

// Llama-3-8B on 8 H100s, DP 8, ZeRO-1 (tests/support/model_fixtures.hpp).
Scenario llama_zero1(Precision precision, bool fp8_params) {
  return shardmeter::test::llama8b_zero1(precision, fp8_params);
}

}  // namespace

TEST_CASE("fp8 GEMMs: the fp8 peak at 0.71/0.80 of the 16-bit efficiency, 1-byte operands, 16-bit output") {
  // H100 fixture: 989 / 1979 TFLOP/s, 3.35 TB/s x 0.85 = 2.8475e12 B/s, gemm_efficiency 0.7, half dim 64, 4 us.
  // m = 8192, n = 64, k = 8192: tile = (8192/8256)^2 x 0.5 = 0.492278.
  // fp8:  compute = 2 x 8192 x 64 x 8192 / (1979e12 x 0.7 x 0.8875 x 0.492278) = 14.193 us;
  //       traffic = (1 x (8192 x 8192 + 8192 x 64) + 2 x 8192 x 64) / 2.8475e12 = 68,681,728 / 2.8475e12 = 24.120 us
  //       -> bound by traffic: 24.120 + 4 = 28.120 us.
  // bf16: compute = 8.5899e9 / (989e12 x 0.7 x 0.492278) = 25.205 us; traffic = 2 x 68,157,440 / 2.8475e12 =
  //       47.872 us -> 51.872 us. Half the operand bytes, not half the time: the output stays 16-bit.
  const GpuSpec g = h100_sxm();
  CHECK(gemm_time_s(8192, 64, 8192, g, Precision::fp8) == Approx(28.120e-6).epsilon(1e-4));
  CHECK(gemm_time_s(8192, 64, 8192, g, Precision::bf16) == Approx(51.872e-6).epsilon(1e-4));
}

TEST_CASE("What is fp8 for each stack (docs/model.md §2.2 table)") {
  const Fp8Use te = fp8_use(Precision::fp8, Stack::megatron_te);
  CHECK(te.gemms);
  CHECK_FALSE(te.logits);           // Megatron's output layer is a plain ColumnParallelLinear
  CHECK(te.saved_inputs);           // TE saves its GEMM inputs in fp8
  CHECK(te.weight_copies);          // fp8 weight + transpose cache beside the bf16 weights
  CHECK(te.tp_all_gather);
  CHECK_FALSE(te.param_gather);
  CHECK(te.te_casts);
  CHECK_FALSE(te.current_scaling);  // Megatron's default recipe: delayed
  CHECK(te.weight_cast_per_step);

  const Fp8Use te_params = fp8_use(Precision::fp8, Stack::megatron_te, true, Fp8Recipe::current);
  CHECK(te_params.param_gather);
  CHECK_FALSE(te_params.weight_copies);  // fp8 primary weights replace the 16-bit copy
  CHECK(te_params.current_scaling);

  const Fp8Use titan = fp8_use(Precision::fp8, Stack::torch_fsdp2, true);
  CHECK(titan.logits);                   // torchtitan converts every nn.Linear (filter_fqns empty by default)
  CHECK_FALSE(titan.saved_inputs);       // torchao saves the high-precision input and weight
  CHECK_FALSE(titan.weight_copies);
  CHECK(titan.param_gather);             // enable_fsdp_float8_all_gather
  CHECK_FALSE(titan.te_casts);
  CHECK(titan.current_scaling);          // torchao scales dynamically only

  // FSDP1 / DeepSpeed run TE modules but have no fp8 parameter gather.
  CHECK_FALSE(fp8_use(Precision::fp8, Stack::torch_fsdp1, true).param_gather);
  CHECK(fp8_use(Precision::fp8, Stack::deepspeed).saved_inputs);
  // Nothing is fp8 in a 16-bit run, or on a stack without fp8.
  CHECK_FALSE(fp8_use(Precision::bf16, Stack::megatron_te, true).gemms);
  CHECK_FALSE(fp8_use(Precision::fp8, Stack::megatron).gemms);
  CHECK_FALSE(stack_runs_fp8(Stack::deepspeed_2021));
}

TEST_CASE("Cast bytes per element: TE fused cast + transpose, torchao cast and recast") {
  // TE delayed: read 2 B + write 1 B rowwise + 1 B transpose = 4; current: + 2 B for the amax read = 6.
  CHECK(fp8_cast_bytes_per_element(fp8_use(Precision::fp8, Stack::megatron_te)) == 4.0);
  CHECK(fp8_cast_bytes_per_element(fp8_use(Precision::fp8, Stack::megatron_te, false, Fp8Recipe::current)) == 6.0);
  // torchao: 2 casts x (2 B amax read + 2 B read + 1 B write) = 10.
  CHECK(fp8_cast_bytes_per_element(fp8_use(Precision::fp8, Stack::torch_fsdp2)) == 10.0);
  CHECK(fp8_cast_bytes_per_element(fp8_use(Precision::bf16, Stack::megatron_te)) == 0.0);
}

TEST_CASE("fp8 operands of one Llama-3-8B block, TP 1, CP 2") {
  // T = 4096, h = 4096, q = 32 x 128 = 4096, kv = 8 x 128 = 1024, f = 14336 (SwiGLU: up width 28672).
  // inputs: QKV 4096 x 4096 + projection 4096 x 4096 + MLP-up 4096 x 4096 + MLP-down 4096 x 14336 = 109,051,904,
  //   of which the norms produce QKV and MLP-up: 33,554,432.
  // output gradients: QKV 4096 x 6144 + projection 4096 x 4096 + up 4096 x 28672 + down 4096 x 4096 = 176,160,768.
  // weights: 4096 x 6144 + 4096 x 4096 + 3 x 4096 x 14336 = 25,165,824 + 16,777,216 + 176,160,768 = 218,103,808.
  const Fp8BlockTensors x = fp8_block_tensors(llama3_8b(), llama_plan(), 1);
  CHECK(x.inputs == 109051904.0);
  CHECK(x.norm_inputs == 33554432.0);
  CHECK(x.grad_outputs == 176160768.0);
  CHECK(x.weights == 218103808.0);
  CHECK(fp8_block_weight_params(llama3_8b()) == 218103808.0);
  CHECK(x.gemms == 4.0);
  CHECK(x.norm_gemms == 2.0);
  // With TP 4 and SP the replicated inputs are cast on the sequence shard: QKV 4096 x 4096 / 4, ...
  PlanSpec sp = llama_plan();
  sp.tp = 4;
  sp.sequence_parallel = true;
  CHECK(fp8_block_tensors(llama3_8b(), sp, 1).inputs == Approx(109051904.0 / 4));
}

TEST_CASE("Cast kernels of one block: memory-bound, norm outputs fused under TE, weights once per step") {
  // megatron_te, delayed: cast bytes (inputs - norm inputs + output gradients) x 4 = (75,497,472 + 176,160,768) x 4
  //   = 1,006,632,960 B; kernels: 2 inputs + 4 output gradients = 6.
  //   per micro-batch = 1,006,632,960 / 2.8475e12 + 6 x 4 us = 353.515 + 24 = 377.515 us.
  // Weights once per step (TE's first-micro-batch cache): 218,103,808 x 4 / 2.8475e12 + 4 x 4 us = 322.379 us;
  //   with fp8 primary weights only the transpose is refreshed (1 B read + 1 B write): 153.190 + 16 = 169.190 us.
  // Full recompute re-runs the forward's input casts: 75,497,472 x 4 / 2.8475e12 + 2 x 4 us = 114.054 us.
  const GpuSpec g = h100_sxm();
  const IslandLayout l{};
  const Fp8CastCost te = fp8_cast_cost(llama3_8b(), g, llama_plan(), fp8_use(Precision::fp8, Stack::megatron_te), 1,
                                       32, l);
  CHECK(te.per_microbatch_s == Approx(377.515e-6).epsilon(1e-4));
  CHECK(te.per_step_s == Approx(322.379e-6).epsilon(1e-4));
  CHECK(te.recompute_s == Approx(114.054e-6).epsilon(1e-4));
  CHECK(te.amax_per_microbatch_s == 0.0);  // TP 1: no amax reduction
  const Fp8CastCost params = fp8_cast_cost(llama3_8b(), g, llama_plan(),
                                           fp8_use(Precision::fp8, Stack::megatron_te, true), 1, 32, l);
  CHECK(params.per_step_s == Approx(169.190e-6).epsilon(1e-4));
  // Nothing to cast in a 16-bit run.
  const Fp8CastCost none = fp8_cast_cost(llama3_8b(), g, llama_plan(), fp8_use(Precision::bf16, Stack::megatron_te), 1,
                                         32, l);
  CHECK(none.per_microbatch_s == 0.0);
  CHECK(none.per_step_s == 0.0);
}

TEST_CASE("TP bytes: with SP the all-gather half moves fp8, so one collective moves 0.75 of its 16-bit bytes") {
  const Fp8Use te = fp8_use(Precision::fp8, Stack::megatron_te);
  CHECK(tp_all_gather_bytes_per_element(te, true) == 1.5);   // (2 B reduce-scatter + 1 B all-gather) / 2
  CHECK(tp_all_gather_bytes_per_element(te, false) == 2.0);  // an all-reduce of the 16-bit output
  CHECK(tp_all_gather_bytes_per_element(fp8_use(Precision::bf16, Stack::megatron_te), true) == 2.0);

  // Llama-3-8B, TP 8 with SP inside one H100 node, no link latency: the ring terms scale with the bytes, 1.5 / 2 = 0.75.
  IslandSpec island = shardmeter::test::island(h100_sxm(), 8, 3200);
  island.gpu.scaleup.latency_s = 0;
  PlanSpec plan;
  plan.tp = 8;
  plan.sequence_parallel = true;
  const IslandLayout l = make_layout(island, plan, 1);
  const LayerCost fp8 = layer_cost(llama3_8b(), island.gpu, plan, Precision::fp8, 1, l);
  const LayerCost bf16 = layer_cost(llama3_8b(), island.gpu, plan, Precision::bf16, 1, l);
  // NCCL's fixed base latency per collective (8.4 µs, docs/model.md §3.5) does not scale with the bytes: within 1 %.
  CHECK(fp8.forward.tp_comm_s == Approx(0.75 * bf16.forward.tp_comm_s).epsilon(0.01));
  CHECK(fp8.backward.tp_comm_s == Approx(0.75 * bf16.backward.tp_comm_s).epsilon(0.01));
}

TEST_CASE("Saved activations: TE keeps its fp8 GEMM inputs in fp8") {
  // Llama-3-8B, TP 1, CP 2: sbh = 4096 x 4096 = 16,777,216.
  // QKV and MLP-up inputs: -1 B x 2 sbh = -33,554,432; MLP-down input: -1 B x sbh x 14336/4096 = -58,720,256;
  // projection input with flash attention: +1 B x sbh (an fp8 copy beside the output flash attention keeps)
  //   = +16,777,216  ->  -75,497,472 B per block.
  // Standard attention: the projection input is kept only in fp8: -16,777,216 -> -109,051,904.
  const Fp8Use te = fp8_use(Precision::fp8, Stack::megatron_te);
  PlanSpec plan = llama_plan();
  CHECK(fp8_saved_activation_delta_bytes(llama3_8b(), plan, 1, te) == -75497472.0);
  plan.attention = AttentionKernel::standard;
  CHECK(fp8_saved_activation_delta_bytes(llama3_8b(), plan, 1, te) == -109051904.0);
  // Full recompute keeps the 16-bit block input only; torchao saves its inputs in 16 bits.
  plan.recompute = Recompute::full;
  CHECK(fp8_saved_activation_delta_bytes(llama3_8b(), plan, 1, te) == 0.0);
  CHECK(fp8_saved_activation_delta_bytes(llama3_8b(), llama_plan(), 1, fp8_use(Precision::fp8, Stack::torch_fsdp2)) ==
        0.0);
}

TEST_CASE("fp8 weights in memory and on the wire (megatron_te, ZeRO-1, Llama-3-8B on 8 H100s)") {
  // TE's cache adds 2 B per GEMM weight: 2 x 32 blocks x 218,103,808 = 13,958,643,712 B. With fp8 primary weights
  // (fp8_params) 1 B + 1 B transpose replace the 2 B copy: the weights are those of the bf16 run.
  const Estimate bf16 = evaluate(llama_zero1(Precision::bf16, false));
  const Estimate fp8 = evaluate(llama_zero1(Precision::fp8, false));
  const Estimate fp8_params = evaluate(llama_zero1(Precision::fp8, true));
  CHECK(fp8.memory.weights_bytes - bf16.memory.weights_bytes == Approx(13958643712.0));
  CHECK(fp8_params.memory.weights_bytes == Approx(bf16.memory.weights_bytes));
  // Full recompute: the checkpointed blocks keep their 16-bit input only; the one block being recomputed holds its
  // working set with fp8 inputs: at CP 1, sbh = 8192 x 4096, twice the CP-2 figure above: -150,994,944 B.
  CHECK(fp8.memory.activations_bytes - bf16.memory.activations_bytes == Approx(-150994944.0));

  // The distributed optimizer's parameter all-gather (ZeRO-1, DP 8 inside one node, not overlapped) moves the GEMM
  // weights at 1 B with fp8_params: 7/8 x 32 x 218,103,808 B x 1 B less over 450 GB/s x 0.8 = 16.964 ms less.
  Scenario a = llama_zero1(Precision::fp8, false);
  Scenario b = llama_zero1(Precision::fp8, true);
  a.plan.overlap_param_gather = b.plan.overlap_param_gather = false;
  CHECK(evaluate(a).time.dp_comm_s - evaluate(b).time.dp_comm_s == Approx(0.0169636).epsilon(1e-4));
}

TEST_CASE("FSDP2's fp8 all-gather: the gathered block matrices take 1 B in the unit buffers") {
  // Two gathered units (the current and the prefetched one) of fp8 matrices save 2 x 1 B x 218,103,808 =
  // 436,207,616 B against 16-bit gathers. With Llama-3-8B's vocabulary the fullest unit is the embedding
  // (525 M parameters, more than a block's 218 M): it is gathered in 16 bits either way.
  const auto buffers = [](Scenario s, bool fp8_params) {
    s.training.fp8_params = fp8_params;
    return stage_memory(s, make_layout(s.cluster.islands[0], s.plan, 1), count_parameters(s.model), 1,
                        StagePosition::only).fsdp_buffers_bytes;
  };
  Scenario s = shardmeter::test::llama8b_fsdp(h100_sxm(), 8);
  s.plan.stack = Stack::torch_fsdp2;
  s.training.precision = Precision::fp8;
  CHECK(buffers(s, true) == buffers(s, false));
  s.model.vocab = 1000;  // now one block is the fullest unit
  CHECK(buffers(s, false) - buffers(s, true) == Approx(436207616.0));
}

TEST_CASE("MFU is measured against the dense peak of the stated precision, and never exceeds 1 for fp8 plans") {
  // Stress the kernels beyond any calibrated value (efficiencies 1, no tile loss): MFU must still stay <= 1, since
  // every model FLOP runs at most at the fp8 peak (attention at the 16-bit one).
  int feasible = 0;
  double best = 0;
  for (const Stack stack : {Stack::megatron_te, Stack::torch_fsdp2}) {
    for (const int tp : {1, 2, 4, 8}) {
      for (const int micro_batch : {1, 2, 4}) {
        for (const Recompute recompute : {Recompute::none, Recompute::selective, Recompute::full}) {
          for (const double efficiency : {0.7, 1.0}) {
            Scenario s = shardmeter::test::llama8b_fsdp(h100_sxm(), 64, micro_batch);
            s.plan.stack = stack;
            s.plan.tp = tp;
            s.plan.sequence_parallel = tp > 1;
            s.plan.recompute = recompute;
            s.plan.sharding = stack == Stack::megatron_te ? Sharding::zero1 : Sharding::fsdp;
            s.training.precision = Precision::fp8;
            s.training.fp8_params = tp == 2;
            GpuSpec& g = s.cluster.islands[0].gpu;
            g.gemm_efficiency = efficiency;
            g.attention_efficiency = efficiency;
            g.gemm_half_dim = efficiency == 1.0 ? 1e-9 : g.gemm_half_dim;
            g.kernel_overhead_s = efficiency == 1.0 ? 0.0 : g.kernel_overhead_s;
            const Estimate e = evaluate(s);
            REQUIRE(e.reject_reason != RejectReason::fp8_not_supported);
            if (!e.feasible) continue;
            ++feasible;
            INFO("stack " << static_cast<int>(stack) << " tp " << tp << " b " << micro_batch << " eff " << efficiency);
            CHECK(e.mfu_peak_precision == Precision::fp8);
            CHECK(e.mfu <= 1.0);
            CHECK(e.hfu <= 1.0);
            // MFU x peak = model TFLOP/s per GPU: the stated peak is the fp8 one.
            CHECK(e.mfu * 1979.0 == Approx(e.tflops_per_gpu));
            best = std::max(best, e.mfu);
          }
        }
      }
    }
  }
  CHECK(feasible >= 50);
  CHECK(best > 0.3);  // the sweep reaches high utilisation, so the bound is tested where it matters
  // A 16-bit run is measured against the 16-bit peak.
  const Estimate bf16 = evaluate(llama_zero1(Precision::bf16, false));
  CHECK(bf16.mfu_peak_precision == Precision::bf16);
  CHECK(bf16.mfu * 989.0 == Approx(bf16.tflops_per_gpu));
}

TEST_CASE("fp8 on a GPU without fp8 tensor cores, or on a stack without fp8, is rejected, not run in 16 bits") {
  Scenario s = llama_zero1(Precision::fp8, false);
  s.cluster.islands[0].gpu = shardmeter::test::a100_80gb();  // fp8 peak 0
  Violation v = check_consistency(s);
  CHECK(v.reason == RejectReason::fp8_not_supported);
  CHECK(v.field == FieldId::training_precision);
  CHECK(v.other == FieldId::island_gpu_fp8);
  CHECK(v.island == 0);
  CHECK(evaluate(s).reject_reason == RejectReason::fp8_not_supported);
  s.training.precision = Precision::bf16;
  CHECK_FALSE(check_consistency(s));

  s = llama_zero1(Precision::fp8, false);
  s.plan.stack = Stack::megatron;
  v = check_consistency(s);
  CHECK(v.reason == RejectReason::fp8_not_supported);
  CHECK(v.other == FieldId::plan_stack);
  s = llama_zero1(Precision::fp8, true);
  s.plan.stack = Stack::deepspeed;  // no fp8 parameter gather
  CHECK(check_consistency(s).field == FieldId::training_fp8_params);
  s = llama_zero1(Precision::fp8, false);
  s.plan.stack = Stack::torch_fsdp2;
  s.training.fp8_recipe = Fp8Recipe::delayed;  // torchao has no delayed scaling
  CHECK(check_consistency(s).field == FieldId::training_fp8_recipe);
}
