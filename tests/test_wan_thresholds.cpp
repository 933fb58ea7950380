#include <catch2/catch.hpp>

#include <array>
#include <cmath>

#include "model/job/wan_thresholds.hpp"

namespace model = shardmeter::model;
using model::WanMethod;

TEST_CASE("WAN timeline: a transfer that fits its window stalls only by its last bucket") {
  // 2 islands (ring factor 1), 128 MB payload, 1 s step, released over the backward [1/3 s, 1 s].
  // At 1 GB/s each 1 MB bucket takes 1 ms and is ready every 5.2 ms: the link keeps up, and the last bucket,
  // ready at 1 s, finishes 1 ms late: utilisation 1 / 1.001.
  const model::WanSchedule s = model::backward_released(WanMethod::data_parallel, 128e6, 2, 1.0);
  CHECK(model::wan_compute_utilization(s, 1e9) == Approx(1.0 / 1.001));
  // At 64 MB/s the link needs 2 s from the first ready bucket (1/3 s + 1/128 of 2/3 s): it finishes at
  // 0.3385 + 2 = 2.3385 s, a stall of 1.3385 s per step: utilisation 1 / 2.3385.
  CHECK(model::wan_compute_utilization(s, 64e6) == Approx(1.0 / (1.0 / 3 + 2.0 / 3 / 128 + 2.0)).epsilon(1e-6));
}

TEST_CASE("WAN timeline: DiLoCo sends every H steps, Streaming a fragment every H/P steps with tau steps of slack") {
  // DiLoCo H = 10, same transfer as above at 64 MB/s: one stall of 1.3385 s per 10 steps.
  model::WanSchedule s = model::backward_released(WanMethod::diloco, 128e6, 2, 1.0);
  s.inner_steps = 10;
  CHECK(model::wan_compute_utilization(s, 64e6) == Approx(10.0 / (10 + 1.3385417)).epsilon(1e-6));
  // Streaming, P = 2 fragments of 64 MB every 5 steps, tau = 1: each needs 1 s from 0.3385 s and finishes at
  // 1.3385 s, before its deadline at the end of the next step (2 s): no stall at all.
  s.method = WanMethod::streaming_diloco;
  s.fragments = 2;
  s.overlap_steps = 1;
  CHECK(model::wan_compute_utilization(s, 64e6) == 1.0);
}

TEST_CASE("The published bandwidth grid: 50 points from 0.1 to 1000 Gbit/s") {
  CHECK(model::snap_up_to_grid_gbps(0.1) == Approx(0.1));
  CHECK(model::snap_up_to_grid_gbps(80.0) == Approx(86.85).epsilon(1e-3));   // 10^(-1 + 4*36/49)
  CHECK(model::snap_up_to_grid_gbps(86.9) == Approx(104.8).epsilon(1e-3));
  CHECK(model::grid_steps_between(86.8, 104.8) == 1);
  CHECK(model::grid_steps_between(222.3, 184.2) == -1);
}

namespace {

// Streaming DiLoCo (Douillard et al. 2025, arXiv 2501.18512v1) App. Table 4: Gbit/s for 50/80/90/95/99 % compute
// utilisation; H = 100, fragments of 3 layers, tau = 1 for the overlapped rows, FP4 outer gradients in the last.
struct PublishedRow {
  double params;
  double step_s;
  int layers;
  WanMethod method;
  int overlap_steps;
  double bits;
  std::array<double, 5> gbps;
};

// clang-format off
constexpr std::array<PublishedRow, 15> kTable4 = {{
  {1e9, 0.1, 24, WanMethod::data_parallel, 0, 16, {86.8, 152.6, 184.2, 222.3, 569.0}},
  {1e9, 0.1, 24, WanMethod::diloco, 0, 16, {1.4, 6.2, 13.3, 23.3, 86.8}},
  {1e9, 0.1, 24, WanMethod::streaming_diloco, 0, 16, {1.4, 5.2, 9.1, 16.0, 28.1}},
  {1e9, 0.1, 24, WanMethod::streaming_diloco, 1, 16, {1.4, 4.3, 6.2, 9.1, 11.0}},
  {1e9, 0.1, 24, WanMethod::streaming_diloco, 1, 4, {0.4, 0.9, 1.7, 2.0, 3.0}},
  {10e9, 0.8, 48, WanMethod::data_parallel, 0, 16, {104.8, 222.3, 222.3, 268.3, 471.5}},
  {10e9, 0.8, 48, WanMethod::diloco, 0, 16, {1.7, 7.5, 16.0, 33.9, 104.8}},
  {10e9, 0.8, 48, WanMethod::streaming_diloco, 0, 16, {1.7, 5.2, 9.1, 13.3, 19.3}},
  {10e9, 0.8, 48, WanMethod::streaming_diloco, 1, 16, {1.7, 3.6, 5.2, 6.2, 7.5}},
  {10e9, 0.8, 48, WanMethod::streaming_diloco, 1, 4, {0.4, 0.9, 1.4, 1.4, 1.7}},
  {100e9, 4.9, 108, WanMethod::data_parallel, 0, 16, {184.2, 323.8, 390.7, 390.7, 471.5}},
  {100e9, 4.9, 108, WanMethod::diloco, 0, 16, {3.0, 11.0, 23.3, 49.4, 184.2}},
  {100e9, 4.9, 108, WanMethod::streaming_diloco, 0, 16, {2.4, 6.2, 9.1, 11.0, 19.3}},
  {100e9, 4.9, 108, WanMethod::streaming_diloco, 1, 16, {1.7, 3.6, 4.3, 5.2, 5.2}},
  {100e9, 4.9, 108, WanMethod::streaming_diloco, 1, 4, {0.5, 0.9, 1.1, 1.1, 1.4}},
}};
// clang-format on

}  // namespace

TEST_CASE("thresholds reproduce the Streaming DiLoCo bandwidth table within one grid step") {
  // Payload 0.9 x N x bits (docs/model.md §12.3: the table is matched best by 0.9 of the nominal size), M = 2.
  int exact = 0, within_one = 0, cells = 0;
  for (const PublishedRow& row : kTable4) {
    model::WanSchedule s = model::backward_released(row.method, 0.9 * row.params * row.bits / 8, 2, row.step_s);
    s.inner_steps = 100;
    s.fragments = row.layers / 3;
    s.overlap_steps = row.overlap_steps;
    for (std::size_t t = 0; t < model::kUtilizationTargets.size(); ++t) {
      const double gbps = model::wan_bandwidth_for_utilization(s, model::kUtilizationTargets[t]) * 8 / 1e9;
      const int steps = model::grid_steps_between(row.gbps[t], model::snap_up_to_grid_gbps(gbps));
      ++cells;
      exact += steps == 0;
      within_one += std::abs(steps) <= 1;
      INFO("N " << row.params << " method " << static_cast<int>(row.method) << " tau " << row.overlap_steps << " bits "
                << row.bits << " target " << model::kUtilizationTargets[t] << ": published " << row.gbps[t]
                << ", simulated " << gbps);
      // The 99 % cells of data parallelism and non-overlapped Streaming need more than the bucket model's
      // bandwidth in the paper (a per-step serialisation the bucket model lacks, §12.3); the rest: one grid step.
      if (t < 4) CHECK(std::abs(steps) <= 1);
    }
  }
  CHECK(cells == 75);
  CHECK(within_one >= 70);
  CHECK(exact >= 40);
}
