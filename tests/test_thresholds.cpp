// FSDP hardware thresholds (model/job/thresholds.hpp): properties a reader can check without the model's constants.
#include <catch2/catch.hpp>

#include <numeric>

#include "model/parallel/consistency.hpp"
#include "model/job/evaluate.hpp"
#include "model/job/thresholds.hpp"
#include "model_fixtures.hpp"
#include "run_shardmeter.hpp"

using namespace shardmeter;
using model::Scenario;

namespace {

bool fits(const Scenario& s) {
  const model::Estimate e = model::evaluate(s);
  return e.reject_reason == model::RejectReason::none && e.feasible;
}

Scenario with_seq(Scenario s, int seq) {
  s.model.seq_len = seq;
  return s;
}

// Llama-3-8B, FSDP over 8 H100 nodes (3200 Gbit/s each), micro-batch 1.
Scenario fsdp_h100(double node_gbit = 3200) {
  Scenario s = test::llama8b_fsdp(test::h100_sxm(), 64, 1);
  s.cluster.islands[0].node_network.bytes_per_s = node_gbit * 1e9 / 8;
  return s;
}

}  // namespace

TEST_CASE("thresholds: more HBM fits a longer sequence") {
  Scenario s = test::llama8b_fsdp(test::a100_80gb(), 16, 1);
  const int base = model::max_sequence_length(s);
  REQUIRE(base > 0);
  CHECK(base % 256 == 0);
  CHECK(fits(with_seq(s, base)));
  CHECK_FALSE(fits(with_seq(s, base + 256)));
  s.cluster.islands[0].gpu.hbm_bytes *= 1.5;
  CHECK(model::max_sequence_length(s) > base);
  s.cluster.islands[0].gpu.hbm_bytes /= 3;  // 40 GiB
  CHECK(model::max_sequence_length(s) < base);
}

TEST_CASE("thresholds: with context parallelism the longest sequence is a multiple of 2 x cp (regression)") {
  // cp = 3: lengths must divide into 6 chunks; multiples of 256 alone never do (the old search returned 0).
  Scenario s = test::llama8b_fsdp(test::h100_sxm(), 24, 1);
  s.model.seq_len = 6144;
  s.plan.cp = 3;
  REQUIRE_FALSE(model::check_consistency(s));
  const int longest = model::max_sequence_length(s);
  REQUIRE(longest > 0);
  CHECK(longest % std::lcm(256, 6) == 0);
  CHECK(fits(with_seq(s, longest)));
  CHECK_FALSE(fits(with_seq(s, longest + 768)));
}

TEST_CASE("thresholds: less bandwidth leaves the minimum bandwidth unchanged but exposes more communication") {
  const model::BandwidthThreshold fast = model::min_bandwidth_for_compute_bound(fsdp_h100(3200));
  const model::BandwidthThreshold slow = model::min_bandwidth_for_compute_bound(fsdp_h100(800));
  REQUIRE(fast.reachable);
  REQUIRE(slow.reachable);
  CHECK_FALSE(fast.any_bandwidth);
  CHECK(slow.node_network_bytes_per_s == Approx(fast.node_network_bytes_per_s).epsilon(1e-3));
  CHECK(slow.per_gpu_bytes_per_s == Approx(fast.node_network_bytes_per_s / 8).epsilon(1e-3));
  CHECK(slow.comm_share_at_current > fast.comm_share_at_current);
  CHECK(slow.factor == Approx(4 * fast.factor).epsilon(1e-3));
  // At the threshold the step is compute-bound; 1 % below it, it is not.
  const Scenario s = fsdp_h100(3200);
  CHECK(model::exposed_comm_share(model::with_bandwidth_factor(s, fast.factor)) <= model::kComputeBoundCommShare);
  CHECK(model::exposed_comm_share(model::with_bandwidth_factor(s, fast.factor * 0.99)) > model::kComputeBoundCommShare);
  // A looser criterion needs less bandwidth.
  CHECK(model::min_bandwidth_for_compute_bound(s, 0.2).node_network_bytes_per_s < fast.node_network_bytes_per_s);
}

TEST_CASE("thresholds: communication no node network can hide makes compute-bound unreachable") {
  // Two islands, synchronous HSDP over a 1 Gbit/s WAN: the WAN all-reduce does not shrink with the node network.
  Scenario s = fsdp_h100();
  s.plan.sharding = model::Sharding::hsdp;
  s.cluster.islands[0].count = 2;
  s.training.global_batch *= 2;
  s.cluster.wan.bytes_per_s = 1e9 / 8;
  s.cluster.wan.latency_s = 0.03;
  s.cluster.has_wan = true;
  REQUIRE(fits(s));
  const model::BandwidthThreshold t = model::min_bandwidth_for_compute_bound(s);
  CHECK_FALSE(t.reachable);
  CHECK(t.comm_share_floor > 0.5);
  CHECK(t.node_network_bytes_per_s == 0);
}

TEST_CASE("thresholds: a one-node plan does not depend on the node network") {
  const Scenario s = test::llama8b_fsdp(test::h100_sxm(), 8, 1);
  const model::BandwidthThreshold t = model::min_bandwidth_for_compute_bound(s);
  CHECK(t.comm_share_floor == Approx(t.comm_share_at_current));
  if (t.reachable) CHECK(t.any_bandwidth);
}

TEST_CASE("thresholds: the largest micro-batch fits, the next does not; the smallest compute-bound one is exact") {
  const Scenario s = fsdp_h100(800);
  const model::TokensThreshold t = model::tokens_per_gpu_thresholds(s);
  REQUIRE(t.max_micro_batch > 0);
  CHECK(fits(model::with_micro_batch(s, t.max_micro_batch)));
  CHECK_FALSE(fits(model::with_micro_batch(s, t.max_micro_batch + 1)));
  CHECK(t.max_tokens_per_gpu == Approx(t.max_micro_batch * 8192.0));
  REQUIRE(t.compute_bound_exists);
  const int b = t.min_compute_bound_micro_batch;
  CHECK(b <= t.max_micro_batch);
  CHECK(model::exposed_comm_share(model::with_micro_batch(s, b)) <= model::kComputeBoundCommShare);
  if (b > 1) CHECK(model::exposed_comm_share(model::with_micro_batch(s, b - 1)) > model::kComputeBoundCommShare);
  // With ten times less bandwidth no micro-batch that fits is compute-bound.
  const model::TokensThreshold starved = model::tokens_per_gpu_thresholds(fsdp_h100(80));
  CHECK(starved.max_micro_batch == t.max_micro_batch);
  CHECK_FALSE(starved.compute_bound_exists);
  CHECK(starved.min_compute_bound_micro_batch == 0);
}

TEST_CASE("thresholds: a plan whose micro-batch 1 does not fit has no tokens per GPU") {
  Scenario s = fsdp_h100();
  s.plan.recompute = model::Recompute::none;
  s.model.seq_len = 131072;
  const model::TokensThreshold t = model::tokens_per_gpu_thresholds(s);
  CHECK(t.max_micro_batch == 0);
  CHECK(t.max_tokens_per_gpu == 0);
  CHECK_FALSE(t.compute_bound_exists);
}

TEST_CASE("with_micro_batch keeps every divisibility rule, also for DiLoCo across unequal islands") {
  Scenario s = fsdp_h100();
  s.cluster.islands[1] = test::island(test::a100_80gb(), 32, 1600);
  s.cluster.island_entries = 2;
  s.cluster.wan.bytes_per_s = 10e9 / 8;
  s.cluster.has_wan = true;
  s.plan.sync = model::SyncMode::diloco;
  s.training.global_batch = 64 * 2 * 2;  // 2 islands x 64 replicas of the bigger island x 2 micro-batches
  REQUIRE_FALSE(model::check_consistency(s));
  for (int b : {1, 2, 3, 5, 8}) {
    INFO(b);
    const Scenario t = model::with_micro_batch(s, b);
    CHECK_FALSE(model::check_consistency(t));
    CHECK(t.training.global_batch == s.training.global_batch * b);
  }
}

TEST_CASE("thresholds through the binary: report, JSON and bad input") {
  using shardmeter::testing::run_shardmeter;
  const auto r = run_shardmeter("thresholds small.yaml");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("minimum for compute-bound") && Catch::Contains("longest sequence that fits"));
  const auto j = run_shardmeter("thresholds small.yaml --json --comm-share 0.2");
  REQUIRE(j.status == 0);
  CHECK_THAT(j.out, Catch::Contains("\"comm_share_criterion\": 0.2"));
  CHECK(run_shardmeter("thresholds small.yaml --comm-share 1.5").status == 2);
  CHECK(run_shardmeter("thresholds").status == 2);
  CHECK(run_shardmeter("thresholds small.yaml --set plan.tp=3").status == 2);
}

TEST_CASE("thresholds order GPUs by compute per byte of network, not by a fitted constant (docs/model.md §6.6)") {
  // The same Llama-3-8B FSDP plan on 64 GPUs at 50 GB/s per GPU, with the same efficiency constants: the H100
  // (3.2x the A100's peak, more SMs and HBM, so no more contention per hidden byte) computes each block faster and
  // has less time to hide the same bytes, so it needs more network bandwidth per GPU to stay compute-bound.
  model::GpuSpec a100 = test::a100_80gb();
  a100.sm_count = 108;
  model::GpuSpec h100 = test::h100_sxm();
  h100.sm_count = 132;
  Scenario on_a100 = test::llama8b_fsdp(a100, 64, 1);
  Scenario on_h100 = test::llama8b_fsdp(h100, 64, 1);
  for (Scenario* s : {&on_a100, &on_h100}) s->cluster.islands[0].node_network.bytes_per_s = 8 * 50e9;
  const model::BandwidthThreshold ta = model::min_bandwidth_for_compute_bound(on_a100);
  const model::BandwidthThreshold th = model::min_bandwidth_for_compute_bound(on_h100);
  INFO("A100 needs " << ta.per_gpu_bytes_per_s / 1e9 << " GB/s per GPU, H100 " << th.per_gpu_bytes_per_s / 1e9);
  CHECK(th.per_gpu_bytes_per_s > ta.per_gpu_bytes_per_s);
}
