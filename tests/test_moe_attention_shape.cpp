// cuDNN flash-attention throughput against sequence length and head dim (docs/model.md §2.5), the term that moves
// gpt-oss-120b's head_dim-64 attention (issue 10, docs/accuracy.md "Mixture of experts").
#include <catch2/catch.hpp>

#include <cmath>

#include "model/step/layer_cost.hpp"
#include "model/parallel/layout.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter::model;
using shardmeter::test::h100_sxm;
using shardmeter::test::llama3_8b;

namespace {

// One block of `model` on an H100 whose fitted attention constant is `fitted`, no launch overhead, TP 1, micro-batch
// 1, flash attention on `stack`.
LayerCost flash_block(const ModelSpec& model, double fitted, Stack stack) {
  GpuSpec gpu = h100_sxm();
  gpu.attention_efficiency = fitted;
  gpu.kernel_overhead_s = 0;
  PlanSpec plan;
  plan.attention = AttentionKernel::flash;
  plan.stack = stack;
  const IslandLayout l = make_layout(shardmeter::test::island(gpu, 8, 3200), plan, 1);
  return layer_cost(model, gpu, plan, Precision::bf16, 1, l);
}

}  // namespace

TEST_CASE("cuDNN flash shape factor: FlashAttention-3's H100 curves relative to s 4096, head_dim 128") {
  // Forward + backward at 1 : 2.5 FLOPs, rate = 3.5 / (1/fwd + 2.5/bwd) TFLOP/s (FA3 Figs. 5-6, cuDNN):
  //   s 4096, d 128: 3.5 / (1/518 + 2.5/499) = 504.29 -> the reference, 1.
  CHECK(cudnn_flash_shape_factor(4096, 128) == Approx(1.0));
  //   s 16384, d 128: 3.5 / (1/539 + 2.5/516) = 522.37 -> 522.37 / 504.29 = 1.0359.
  CHECK(cudnn_flash_shape_factor(16384, 128) == Approx(1.0359));
  //   s 4096, d 64: 3.5 / (1/363 + 2.5/417) = 400.00 -> 0.7932.
  CHECK(cudnn_flash_shape_factor(4096, 64) == Approx(0.7932));
  //   s 2048, d 128: 3.5 / (1/484 + 2.5/465) = 470.33 -> 0.9326.
  CHECK(cudnn_flash_shape_factor(2048, 128) == Approx(0.9326));
}

TEST_CASE("cuDNN flash shape factor: interpolated in log2(s) and log2(head_dim), flat outside the measurements") {
  // s = 4096 * sqrt(2) is half-way from 4k (1.0) to 8k (1.0333) in log2: 1.01665.
  CHECK(cudnn_flash_shape_factor(4096.0 * std::sqrt(2.0), 128) == Approx(1.01665));
  // head_dim 96: log2(96) - 6 = 0.58496 of the way from 0.7932 (d 64) to 1.0 (d 128): 0.7932 + 0.58496 * 0.2068
  // = 0.91417.
  CHECK(cudnn_flash_shape_factor(4096, 96) == Approx(0.91417).epsilon(1e-5));
  // Below 512 and above 16k the end values; head_dim above 128 keeps the 128 row, below 64 the 64 row.
  CHECK(cudnn_flash_shape_factor(256, 128) == Approx(0.6104));
  CHECK(cudnn_flash_shape_factor(65536, 256) == Approx(1.0359));
  CHECK(cudnn_flash_shape_factor(4096, 32) == Approx(0.7932));
}

TEST_CASE("Flash attention on the megatron_te stack runs at the cuDNN shape factor; other stacks do not") {
  // Llama-3-8B's shape with head_dim 64 (32 heads), s 8192, TP 1, micro-batch 1, attention efficiency 0.5, no
  // launch overhead. Forward flash FLOPs: 0.5 * 4 * 32 * 8192 * 8192 * 64 = 274,877,906,944.
  //   megatron: 274,877,906,944 / (989e12 * 0.5) = 0.55587 ms.
  //   megatron_te (docs/model.md §2.5): the kernel at cuDNN's 504 TFLOP/s times the shape at s 8192, d 64,
  //   3.5 / (1/379 + 2.5/432) / 504.29 = 0.8237: 274,877,906,944 / (504e12 * 0.8237) = 0.662126 ms; plus what the
  //   fitted 0.5 carries beyond the kernel per query token, on the FLOPs at 4096 keys (0.5 * 4 * 32 * 8192 * 4096 *
  //   64 = 137,438,953,472) at the shape of s 4096, d 64 (0.7932): 137,438,953,472 * (1 / (989e12 * 0.5 * 0.7932)
  //   - 1 / (504e12 * 0.7932)) = 0.006604 ms. Together 0.668730 ms.
  ModelSpec model = llama3_8b();
  model.head_dim = 64;
  const LayerCost plain = flash_block(model, 0.5, Stack::megatron);
  const LayerCost te = flash_block(model, 0.5, Stack::megatron_te);
  CHECK(plain.forward.attention_s == Approx(0.55587e-3).epsilon(1e-4));
  CHECK(te.forward.attention_s == Approx(0.668730e-3).epsilon(1e-5));
  // The backward keeps FlashAttention-2's 2.5 x forward (docs/model.md §2.5).
  CHECK(te.backward.attention_s == Approx(2.5 * te.forward.attention_s));
}

TEST_CASE("cuDNN flash shape factor: the power-of-two table path equals the interpolation it replaces") {
  // At powers of two the function returns a table entry without calling log2. Just off a power of two it goes
  // through std::log2 and the interpolation; the two must meet (continuity to 1e-9), and both ends of each
  // segment must be hit exactly: 1 ulp above 4096 the weight w is ~1e-16, so the value is the 4k entry, 1.0.
  for (double s : {512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0}) {
    for (double d : {64.0, 128.0}) {
      const double exact = cudnn_flash_shape_factor(s, d);
      CHECK(cudnn_flash_shape_factor(std::nextafter(s, 1e9), d) == Approx(exact).epsilon(1e-9));
      CHECK(cudnn_flash_shape_factor(s, std::nextafter(d, 1e9)) == Approx(exact).epsilon(1e-9));
      CHECK(cudnn_flash_shape_factor(std::nextafter(s, 0.0), std::nextafter(d, 0.0)) == Approx(exact).epsilon(1e-9));
    }
  }
  CHECK(cudnn_flash_shape_factor(std::nextafter(4096.0, 1e9), 128.0) == Approx(1.0).epsilon(1e-12));
  // Non-finite or tiny inputs stay in range (held at the 512 entry of the 64 row).
  CHECK(cudnn_flash_shape_factor(0.0, 0.0) == Approx(0.5014));
}

TEST_CASE("megatron_te core attention: the kernel's s^2 work at cuDNN's rate, the rest of the fitted constant per token") {
  // docs/model.md §2.5. Llama-3-8B's shape (32 heads of 128), TP 1, micro-batch 1, H100 at a fitted 0.276, no launch
  // overhead. At s 4096 the two parts add up to the fitted constant's time: FLOPs 0.5 * 4 * 32 * 4096^2 * 128 =
  // 137,438,953,472 / (989e12 * 0.276 * 1.0) = 0.503510 ms.
  ModelSpec model = llama3_8b();
  model.seq_len = 4096;
  CHECK(flash_block(model, 0.276, Stack::megatron_te).forward.attention_s == Approx(0.503510e-3).epsilon(1e-5));
  // At s 32768 (8x the keys, 8x the query tokens): the kernel part 0.5 * 4 * 32 * 32768^2 * 128 =
  // 8,796,093,022,208 FLOPs / (504e12 * 1.0359, the shape held flat past 16k) = 16.8477 ms; the per-token part 8x
  // its 4096 value, 8 * 137,438,953,472 * (1 / (989e12 * 0.276) - 1 / 504e12) = 8 * 0.230811 ms = 1.846485 ms.
  // Together 18.6942 ms, where the fitted constant alone would charge 64 x 0.503510 / 1.0359 = 31.1076 ms.
  model.seq_len = 32768;
  CHECK(flash_block(model, 0.276, Stack::megatron_te).forward.attention_s == Approx(18.6942e-3).epsilon(1e-4));
  // Another stack keeps the fitted constant for the whole of it: 8,796,093,022,208 / (989e12 * 0.276) = 32.2242 ms.
  CHECK(flash_block(model, 0.276, Stack::torch_fsdp2).forward.attention_s == Approx(32.2242e-3).epsilon(1e-4));
  // A fitted constant at or above the kernel's rate has no per-token part: the kernel at the fitted rate.
  CHECK(flash_block(model, 0.6, Stack::megatron_te).forward.attention_s ==
        Approx(8796093022208.0 / (989e12 * 0.6 * 1.0359)).epsilon(1e-9));
}
