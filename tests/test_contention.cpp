#include <catch2/catch.hpp>

#include "model/comm/contention.hpp"

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
  // delta = 0.85 x 0.12121 / 0.87879 + 0.15 x 0.052678 = 0.117241 + 0.007902 = 0.125143 (linear HBM term, issue 31).
  const GpuSpec h100 = gpu(132, 3.35e12);
  CHECK(contention_slowdown(h100, kNcclChannelsInterNode, 50e9) == Approx(0.125143).epsilon(1e-4));
  // A100 80 GB, 25 GB/s: f_sm = 16/108 = 0.148148, f_bw = 75e9 / (0.85 x 2.039e12) = 0.043274;
  // delta = 0.85 x 0.148148 / 0.851852 + 0.15 x 0.043274 = 0.147826 + 0.006491 = 0.154317.
  const GpuSpec a100 = gpu(108, 2.039e12);
  CHECK(contention_slowdown(a100, kNcclChannelsInterNode, 25e9) == Approx(0.154317).epsilon(1e-4));
  // The HBM share caps at 1 (the collective cannot move bytes faster than HBM lets it): 0.117241 + 0.15.
  CHECK(contention_slowdown(h100, kNcclChannelsInterNode, 1e15) == Approx(0.267241).epsilon(1e-4));
}

TEST_CASE("Contention of a hidden collective: its HBM cost follows its bytes, not the link rate (issue 31)") {
  // 1 GB through an H100 in a collective of alpha = 1 ms + 1 GB / rate. Hidden whole, its HBM part costs
  // 0.15 x 3 x 1e9 / (0.85 x 3.35e12) = 0.15 x 1.05356e-3 = 1.5803e-4 s at every rate below the HBM's; the SM part
  // shrinks with the collective. So the cost of hiding it never rises with the link rate.
  const GpuSpec h100 = gpu(132, 3.35e12);
  double previous = 1e9;
  for (const double rate : {25e9, 50e9, 100e9, 400e9, 800e9, 3.2e12, 100e12}) {
    const double comm = 1e-3 + 1e9 / rate;
    const double cost = collective_contention(h100, GroupPlacement{8, 4}, 1e9, comm) * comm;
    INFO("rate " << rate << " cost " << cost);
    CHECK(cost <= previous);
    previous = cost;
  }
  const double slow = 1e-3 + 1e9 / 50e9;
  const double sm_part = 0.85 * (16.0 / 132) / (1 - 16.0 / 132) * slow;
  CHECK(collective_contention(h100, GroupPlacement{8, 4}, 1e9, slow) * slow - sm_part == Approx(1.5803e-4).epsilon(1e-3));
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

TEST_CASE("Contention of a group: none for one rank, 16 channels across nodes, 24 inside one, at the average rate") {
  const GpuSpec h100 = gpu(132, 3.35e12);
  CHECK(collective_contention(h100, GroupPlacement{1, 1}, 1e9, 0.02) == 0.0);
  CHECK(collective_contention(h100, GroupPlacement{8, 4}, 1e9, 0.02) == Approx(contention_slowdown(h100, 16, 50e9)));
  CHECK(collective_contention(h100, GroupPlacement{8, 1}, 3.6e9, 0.01) == Approx(contention_slowdown(h100, 24, 360e9)));
  CHECK(collective_contention(h100, GroupPlacement{8, 1}, 1e9, 0) == 0.0);
}
