// Sliding-window attention (docs/model.md §2.8): which blocks are windowed, the FLOP and tile fractions of a window,
// hand-worked, and what they do to the model FLOPs and to a block's flash-attention time.
#include <catch2/catch.hpp>

#include "model/kernels/attention_window.hpp"
#include "model/kernels/flops.hpp"
#include "model/step/layer_cost.hpp"
#include "model/parallel/layout.hpp"
#include "model/kernels/parameters.hpp"
#include "model_fixtures.hpp"

namespace m = shardmeter::model;

TEST_CASE("sliding windows: windowed blocks and the fractions of full causal attention", "[attention_window]") {
  m::ModelSpec g = shardmeter::test::llama3_8b();
  g.layers = 36;
  g.seq_len = 4096;
  CHECK(m::windowed_layer_count(g) == 0);   // no window
  g.attention_window = 128;
  CHECK(m::windowed_layer_count(g) == 36);  // every block
  g.full_attention_every = 2;               // gpt-oss: blocks 2, 4, ..., 36 full (Megatron: layer_number % 2 == 0)
  CHECK(m::windowed_layer_count(g) == 18);
  g.full_attention_every = 5;               // 36 / 5 = 7 full blocks
  CHECK(m::windowed_layer_count(g) == 29);

  // FLOPs: a window of 128 keys over 4096 positions, (128 x 4096 - 128 x 127 / 2) / (4096^2 / 2)
  //   = (524,288 - 8128) / 8,388,608 = 0.0615311.
  CHECK(m::window_flop_fraction(128, 4096) == Approx(516160.0 / 8388608.0).epsilon(1e-12));
  // Tiles of 128: 32 query tiles; each reaches ceil(127/128) + 1 = 2 key tiles (the first one only itself):
  //   1 + 31 x 2 = 63 against 1 + 2 + ... + 32 = 528 under the causal mask: 0.119318.
  CHECK(m::window_time_fraction(128, 4096) == Approx(63.0 / 528.0).epsilon(1e-12));
  // A window of 1024: 9 key tiles, 45 + 23 x 9 = 252 of 528 = 0.4773; FLOPs 0.4376.
  CHECK(m::window_time_fraction(1024, 4096) == Approx(252.0 / 528.0).epsilon(1e-12));
  CHECK(m::window_flop_fraction(1024, 4096) == Approx((1024.0 * 4096 - 1024.0 * 1023 / 2) / 8388608.0).epsilon(1e-12));
  // A window as long as the sequence is full causal attention.
  CHECK(m::window_flop_fraction(4096, 4096) == 1.0);
  CHECK(m::window_time_fraction(8192, 4096) == 1.0);
  CHECK(m::window_time_fraction(0, 4096) == 1.0);

  // gpt-oss's mean over 36 blocks, 18 windowed: FLOPs (18 + 18 x 0.0615311) / 36 = 0.530766; time
  // (18 + 18 x 0.119318) / 36 = 0.559659.
  g.full_attention_every = 2;
  CHECK(m::attention_flop_share(g) == Approx(0.5 * (1.0 + 516160.0 / 8388608.0)).epsilon(1e-12));
  CHECK(m::attention_time_share(g) == Approx(0.5 * (1.0 + 63.0 / 528.0)).epsilon(1e-12));
}

TEST_CASE("the tile fraction never falls below the FLOP fraction (the search's bounds rely on it)", "[attention_window]") {
  for (double s : {512.0, 1000.0, 4096.0, 8191.0, 32768.0, 131072.0})
    for (double w = 1; w <= 1.2 * s; w = w * 1.37 + 1) {
      INFO("window " << w << " of " << s);
      CHECK(m::window_time_fraction(w, s) >= m::window_flop_fraction(w, s));
      CHECK(m::window_time_fraction(w, s) <= 1.0);
      CHECK(m::window_flop_fraction(w, s) > 0.0);
    }
}

TEST_CASE("a window cuts the model FLOPs and a block's flash attention by the kernel's saving", "[attention_window]") {
  m::ModelSpec g = shardmeter::test::llama3_8b();   // 32 layers, 32 heads of 128, seq 8192
  const m::ParameterCounts p = m::count_parameters(g);
  const double full = m::count_flops(g, p, m::Recompute::none, 0).model_per_sequence;
  const double attention_full = m::count_flops(g, p, m::Recompute::none, 0).attention_fwd;
  g.attention_window = 4096;   // every block: (4096 x 8192 - 4096 x 4095 / 2) / (8192^2 / 2) = 0.750061
  const m::FlopCounts windowed = m::count_flops(g, p, m::Recompute::none, 0);
  const double fraction = (4096.0 * 8192 - 4096.0 * 4095 / 2) / (0.5 * 8192.0 * 8192);
  CHECK(windowed.attention_fwd == Approx(attention_full * fraction).epsilon(1e-12));
  CHECK(windowed.model_per_sequence == Approx(full - 3.0 * 32 * attention_full * (1 - fraction)).epsilon(1e-12));

  // Flash attention on a stack without cuDNN's measured rate (torch_fsdp2): the fitted constant is the kernel's, so the
  // windowed block costs the tile fraction of the causal one: 64 query tiles, 33 key tiles each once past the
  // start, (33 x 34 / 2 + 31 x 33) / (64 x 65 / 2) = 1584 / 2080 = 0.761538 (plus the one launch).
  m::Scenario s{};
  s.model = shardmeter::test::llama3_8b();
  s.cluster.islands[0] = shardmeter::test::island(shardmeter::test::h100_sxm(), 8);
  s.cluster.island_entries = 1;
  s.plan.stack = m::Stack::torch_fsdp2;
  const m::GpuSpec& gpu = s.cluster.islands[0].gpu;
  const m::IslandLayout l = m::make_layout(s.cluster.islands[0], s.plan);
  const double causal = m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 1, l).forward.attention_s -
                        gpu.kernel_overhead_s;
  s.model.attention_window = 4096;
  const double win = m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 1, l).forward.attention_s -
                     gpu.kernel_overhead_s;
  CHECK(m::window_time_fraction(4096, 8192) == Approx(1584.0 / 2080.0).epsilon(1e-12));
  CHECK(win == Approx(causal * 1584.0 / 2080.0).epsilon(1e-9));
  // On megatron_te the saving is the cuDNN kernel's time at its measured 504 of 989 TFLOP/s, not the fitted
  // constant's per-token part: the block keeps causal - (1 - 0.761538) x kernel time, the kernel's time being
  // 0.5 x 4 x 32 x 8192^2 x 128 = 549,755,813,888 FLOPs at 504e12 x 1.0333 (the shape at s 8192, d 128).
  s.plan.stack = m::Stack::megatron_te;
  s.model.attention_window = 0;
  const double te_causal = m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 1, l).forward.attention_s -
                           gpu.kernel_overhead_s;
  s.model.attention_window = 4096;
  const double te_win = m::layer_cost(s.model, gpu, s.plan, m::Precision::bf16, 1, l).forward.attention_s -
                        gpu.kernel_overhead_s;
  REQUIRE(gpu.attention_efficiency < 504.0 / 989.0);
  CHECK(te_win == Approx(te_causal - (1 - 1584.0 / 2080.0) * 549755813888.0 / (504e12 * 1.0333)).epsilon(1e-4));
  CHECK(te_win < te_causal);
  CHECK(te_win >= te_causal * 1584.0 / 2080.0 - 1e-15);   // never more saved than the windowed share of the charge
}
