#include <catch2/catch.hpp>

#include "model/contention.hpp"

using namespace shardmeter::model;

namespace {
GpuSpec gpu(int sms, double hbm_bytes_per_s) {
  GpuSpec g;
  g.sm_count = sms;
  g.hbm_bytes_per_s = hbm_bytes_per_s;
  g.hbm_efficiency = 0.85;
  return g;
}
}  // namespace

TEST_CASE("Contention from SM and HBM shares of an NCCL collective (docs/model.md §6.6)") {
  // H100 SXM across nodes, 50 GB/s per GPU: f_sm = 16/132 = 0.12121, f_bw = 3 x 50e9 / (0.85 x 3.35e12) = 0.052678;
  // delta = 0.85 x 0.12121 / 0.87879 + 0.15 x 0.052678 / 0.947322 = 0.117241 + 0.008341 = 0.125582.
  const GpuSpec h100 = gpu(132, 3.35e12);
  CHECK(contention_slowdown(h100, kNcclChannelsInterNode, 50e9) == Approx(0.125582).epsilon(1e-4));
  // A100 80 GB, 25 GB/s: f_sm = 16/108 = 0.148148, f_bw = 75e9 / (0.85 x 2.039e12) = 0.043274;
  // delta = 0.85 x 0.148148 / 0.851852 + 0.15 x 0.043274 / 0.956726 = 0.147826 + 0.006785 = 0.154611.
  const GpuSpec a100 = gpu(108, 2.039e12);
  CHECK(contention_slowdown(a100, kNcclChannelsInterNode, 25e9) == Approx(0.154611).epsilon(1e-4));
}

TEST_CASE("Contention: the bounded calibration factor scales it, unknown SMs take 0.15, shares cap at 0.5") {
  GpuSpec g = gpu(0, 1e12);
  // f_sm = 0.15 -> 0.85 x 0.15 / 0.85 = 0.15; no traffic -> f_bw = 0.
  CHECK(contention_slowdown(g, 24, 0) == Approx(0.15));
  g.contention_scale = 2;
  CHECK(contention_slowdown(g, 24, 0) == Approx(0.30));
  g.contention_scale = 1;
  g.sm_count = 8;  // 24 channels on 8 SMs: capped at 0.5 -> 0.85 x 1 = 0.85
  CHECK(contention_slowdown(g, 24, 0) == Approx(0.85));
}

TEST_CASE("Contention of a group: none for one rank, NIC rate across nodes, NVLink inside one") {
  const GpuSpec h100 = gpu(132, 3.35e12);
  const GroupLinks links{360e9, 0, 50e9, 0};
  CHECK(group_contention(h100, GroupPlacement{1, 1}, links) == 0.0);
  CHECK(group_contention(h100, GroupPlacement{8, 4}, links) == Approx(contention_slowdown(h100, 16, 50e9)));
  CHECK(group_contention(h100, GroupPlacement{8, 1}, links) == Approx(contention_slowdown(h100, 24, 360e9)));
}
