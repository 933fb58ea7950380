// Transformer Engine's fp8 weight copies per recipe, fp8_params, stack and GPU generation (docs/model.md §7.14), and
// the loss's logit bytes per stack (§7.7). Values worked out by hand in the comments.
#include <catch2/catch.hpp>

#include "model/parallel/consistency.hpp"
#include "model/job/evaluate.hpp"
#include "model/parallel/fp8.hpp"
#include "model/parallel/fp8_memory.hpp"
#include "model/memory/logit_bytes.hpp"
#include "model/memory/memory.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter::model;
using shardmeter::test::h100_sxm;

namespace {

// Llama-3-8B on 8 GPUs, DP 8, ZeRO-1, megatron_te, full recompute (as tests/test_fp8.cpp), on an H100 whose compute
// capability is `cc` (90 Hopper, 100 Blackwell: only the fp8 layouts read it).
Scenario llama(Precision precision, bool fp8_params, Fp8Recipe recipe, int cc) {
  Scenario s = shardmeter::test::llama8b_zero1(precision, fp8_params);
  s.training.fp8_recipe = recipe;
  s.cluster.islands[0].gpu.compute_capability = cc;
  return s;
}

double weights_delta(bool fp8_params, Fp8Recipe recipe, int cc) {
  return evaluate(llama(Precision::fp8, fp8_params, recipe, cc)).memory.weights_bytes -
         evaluate(llama(Precision::bf16, false, Fp8Recipe::stack_default, cc)).memory.weights_bytes;
}

}  // namespace

TEST_CASE("TE fp8 weight bytes per element: per-tensor scaling with or without the transpose, MXFP8 with scales") {
  // Float8Tensor (delayed, current): 1 B rowwise + 1 B transpose on Hopper; Blackwell's non-TN fp8 GEMMs read the
  // rowwise data for both uses: 1 B. MXFP8Tensor: rowwise + columnwise data 1 B each, one E8M0 byte per 32 elements
  // each: 2 + 2/32 = 2.0625 B on any GPU that runs it.
  CHECK(te_fp8_weight_bytes_per_element(Fp8Recipe::delayed, false) == 2.0);
  CHECK(te_fp8_weight_bytes_per_element(Fp8Recipe::current, false) == 2.0);
  CHECK(te_fp8_weight_bytes_per_element(Fp8Recipe::stack_default, false) == 2.0);
  CHECK(te_fp8_weight_bytes_per_element(Fp8Recipe::delayed, true) == 1.0);
  CHECK(te_fp8_weight_bytes_per_element(Fp8Recipe::current, true) == 1.0);
  CHECK(te_fp8_weight_bytes_per_element(Fp8Recipe::mxfp8, true) == 2.0625);
  CHECK(te_fp8_weight_bytes_per_element(Fp8Recipe::mxfp8, false) == 2.0625);
}

TEST_CASE("Extra bytes per GEMM weight beside the 16-bit copy, by stack, fp8_params, sharding and GPU") {
  const Fp8Use te = fp8_use(Precision::fp8, Stack::megatron_te);
  const Fp8Use te_params = fp8_use(Precision::fp8, Stack::megatron_te, true);
  // Cache beside the bf16 weight: the TE bytes.
  CHECK(fp8_weight_extra_bytes_per_param(te, Fp8Recipe::delayed, Sharding::zero1, false) == 2.0);
  CHECK(fp8_weight_extra_bytes_per_param(te, Fp8Recipe::current, Sharding::none, true) == 1.0);
  CHECK(fp8_weight_extra_bytes_per_param(te, Fp8Recipe::mxfp8, Sharding::zero1, true) == 2.0625);
  // fp8 primary weights replace the 2-byte copy: Hopper 2 - 2 = 0, Blackwell per-tensor 1 - 2 = -1, MXFP8 +1/16.
  CHECK(fp8_weight_extra_bytes_per_param(te_params, Fp8Recipe::delayed, Sharding::zero1, false) == 0.0);
  CHECK(fp8_weight_extra_bytes_per_param(te_params, Fp8Recipe::current, Sharding::zero1, true) == -1.0);
  CHECK(fp8_weight_extra_bytes_per_param(te_params, Fp8Recipe::mxfp8, Sharding::zero1, true) == 0.0625);
  // FSDP: no TE cache; the gathered units carry the weights (§7.6).
  CHECK(fp8_weight_extra_bytes_per_param(te, Fp8Recipe::delayed, Sharding::fsdp, false) == 0.0);
  CHECK(fp8_weight_extra_bytes_per_param(te_params, Fp8Recipe::mxfp8, Sharding::hsdp, true) == 0.0);
  // TE without Megatron's micro-batch cache (llm-foundry, DeepSpeed) and torchao keep no copy.
  CHECK(fp8_weight_extra_bytes_per_param(fp8_use(Precision::fp8, Stack::torch_fsdp1), Fp8Recipe::delayed,
                                         Sharding::zero1, false) == 0.0);
  CHECK(fp8_weight_extra_bytes_per_param(fp8_use(Precision::fp8, Stack::torch_fsdp2, true), Fp8Recipe::current,
                                         Sharding::fsdp, false) == 0.0);
  // 16-bit training: nothing.
  CHECK(fp8_weight_extra_bytes_per_param(fp8_use(Precision::bf16, Stack::megatron_te), Fp8Recipe::delayed,
                                         Sharding::zero1, false) == 0.0);
}

TEST_CASE("The GPU decides the transposes: compute capability 10.x-11.x and 13.x+ are transpose-free") {
  GpuSpec g = h100_sxm();
  g.compute_capability = 90;
  CHECK_FALSE(fp8_gemm_transpose_free(g));
  CHECK_FALSE(gpu_runs_mxfp8(g));
  g.compute_capability = 0;  // unknown: Hopper's layouts
  CHECK_FALSE(fp8_gemm_transpose_free(g));
  g.compute_capability = 100;
  CHECK(fp8_gemm_transpose_free(g));
  CHECK(gpu_runs_mxfp8(g));
  g.compute_capability = 103;
  CHECK(fp8_gemm_transpose_free(g));
  g.compute_capability = 120;  // consumer Blackwell (sm120): TE keeps the transposes
  CHECK_FALSE(fp8_gemm_transpose_free(g));
  CHECK(gpu_runs_mxfp8(g));
}

TEST_CASE("fp8 weight memory of Llama-3-8B per recipe, fp8_params and GPU (megatron_te, ZeRO-1, 8 GPUs)") {
  // GEMM weights of the 32 blocks: 32 x 218,103,808 = 6,979,321,856 (tests/test_fp8.cpp), TP 1, one stage.
  constexpr double w = 6979321856.0;
  CHECK(weights_delta(false, Fp8Recipe::delayed, 90) == Approx(2.0 * w));      // 13,958,643,712
  CHECK(weights_delta(false, Fp8Recipe::current, 90) == Approx(2.0 * w));
  CHECK(weights_delta(false, Fp8Recipe::delayed, 100) == Approx(w));           // 6,979,321,856
  CHECK(weights_delta(false, Fp8Recipe::mxfp8, 100) == Approx(2.0625 * w));    // 14,394,851,328
  CHECK(weights_delta(true, Fp8Recipe::delayed, 90) == Approx(0.0).margin(1.0));
  CHECK(weights_delta(true, Fp8Recipe::current, 100) == Approx(-w));           // -6,979,321,856
  CHECK(weights_delta(true, Fp8Recipe::mxfp8, 100) == Approx(0.0625 * w));     // 436,207,616
}

TEST_CASE("MXFP8 needs a Blackwell GPU and a TE stack: located rejections") {
  Scenario s = llama(Precision::fp8, false, Fp8Recipe::mxfp8, 90);
  Violation v = check_consistency(s);
  CHECK(v.reason == RejectReason::fp8_not_supported);
  CHECK(v.field == FieldId::training_fp8_recipe);
  CHECK(v.other == FieldId::island_gpu_compute_capability);
  CHECK(v.other_value == 90.0);
  CHECK(v.island == 0);
  s = llama(Precision::fp8, false, Fp8Recipe::mxfp8, 100);
  CHECK_FALSE(check_consistency(s));
  s.plan.stack = Stack::torch_fsdp2;  // torchao's Float8Linear has no MXFP8 blocks
  v = check_consistency(s);
  CHECK(v.field == FieldId::training_fp8_recipe);
  CHECK(v.other == FieldId::plan_stack);
}

TEST_CASE("Logit bytes per element: 16-bit logits plus the loss's fp32 copy, or its 16-bit tensor on torch_fsdp1") {
  CHECK(logit_bytes_per_element(Stack::megatron_te) == 6.0);
  CHECK(logit_bytes_per_element(Stack::torch_fsdp2) == 12.0);  // §7.7.1: three fp32 tensors at backward's start
  CHECK(logit_bytes_per_element(Stack::deepspeed) == 6.0);
  CHECK(logit_bytes_per_element(Stack::torch_fsdp1) == 4.0);
  // Llama-3-8B, one 8192-token sequence, TP 1: 8192 x 128,256 = 1,050,673,152 logits: 6,304,038,912 B on
  // megatron_te, 4,202,692,608 B on torch_fsdp1.
  Scenario s = llama(Precision::bf16, false, Fp8Recipe::stack_default, 90);
  CHECK(stage_memory_terms(s).logits_bytes == Approx(6304038912.0));
  s.plan.stack = Stack::torch_fsdp1;
  CHECK(stage_memory_terms(s).logits_bytes == Approx(4202692608.0));
  // torch_fsdp2 (torchtitan's eager fp32 cross entropy, §7.7.1): the saved fp32 log-softmax, nll_loss's fp32
  // gradient and log-softmax's fp32 input gradient, 3 x 4 B: 1,050,673,152 x 12 = 12,608,077,824 B; with TP 8
  // (loss_parallel, vocabulary split) an eighth, 1,576,009,728 B.
  s.plan.stack = Stack::torch_fsdp2;
  CHECK(stage_memory_terms(s).logits_bytes == Approx(12608077824.0));
  s.plan.tp = 8;
  CHECK(stage_memory_terms(s).logits_bytes == Approx(1576009728.0));
}
