#include "model/step/sync_islands.hpp"

#include <algorithm>
#include <cmath>

#include "model/parallel/balanced_split.hpp"
#include "model/parallel/consistency.hpp"
#include "model/step/last_microbatch_backward.hpp"
#include "model/kernels/tensor_bytes.hpp"
#include "model/comm/wan.hpp"

namespace shardmeter::model {

namespace {

// Whole numbers up to 2^53 are exact in a double; +1 and -1 on larger ones may change nothing.
constexpr double kMaxExactCount = 9007199254740992.0;

// WAN traffic of a synchronous job as each island sees it, and the bytes it puts on the WAN per step.
struct WanPlan {
  WanTraffic traffic;
  double bytes_per_step = 0;
  double gradient_all_reduce_s = 0;   // once per step across islands, bucketed behind the last backward
  double gradient_buckets = 1;
};

double wan_gradient_exposed_s(const Scenario& s, const WanPlan& w, const IslandStep& st) {
  if (w.gradient_all_reduce_s <= 0) return 0.0;
  return bucketed_exposed_s(w.gradient_all_reduce_s, w.gradient_buckets, last_microbatch_backward_s(st, s.plan),
                            s.plan.overlap_grad_reduce);
}

WanPlan plan_wan(const Scenario& s, const ParameterCounts& params, const WanRing& ring, int replicas) {
  WanPlan w;
  if (ring.islands < 2) return w;
  const PlanSpec& plan = s.plan;
  const double grad_bytes = params.total * s.training.grad_reduce_bytes;
  const double microbatches = static_cast<double>(s.training.global_batch) / (s.training.micro_batch * replicas);
  if (plan.pp_across_islands) {
    // Stages are placed contiguously, so a replica crosses islands I-1 times (v times more when interleaved);
    // every replica's activations share the island pair's WAN link.
    w.traffic.stages_here = stages_per_island(s);
    const double act = kActivationBytes * s.training.micro_batch * static_cast<double>(s.model.seq_len) / plan.cp *
                       s.model.hidden * replicas;
    w.traffic.p2p_per_microbatch_s = 2.0 * plan.interleave * wan_p2p_s(act, ring);
    w.bytes_per_step = (ring.islands - 1.0) * 2.0 * plan.interleave * microbatches * act;
  } else if (plan.sharding == Sharding::fsdp) {
    // One shard group spanning islands: parameters gathered twice and gradients reduce-scattered every
    // micro-batch over the WAN (each a half all-reduce).
    const double params_bytes = params.total * kWeightBytes;
    w.traffic.per_microbatch_s = wan_all_reduce_s(params_bytes, ring) + 0.5 * wan_all_reduce_s(grad_bytes, ring);
    w.bytes_per_step = microbatches * (wan_all_reduce_bytes(params_bytes, ring) + 0.5 * wan_all_reduce_bytes(grad_bytes, ring));
  } else {
    // DDP / ZeRO-1/2 / HSDP replicas: after reducing inside its island, each island all-reduces the whole
    // model's gradient across islands once per step [docs/model.md §8.2], bucket by bucket behind the whole
    // backward of the last micro-batch (added by synchronous_step, not inside the island step).
    w.gradient_all_reduce_s = wan_all_reduce_s(grad_bytes, ring);
    w.gradient_buckets = std::max(1.0, std::ceil(grad_bytes / kGradientBucketBytes));
    w.bytes_per_step = wan_all_reduce_bytes(grad_bytes, ring);
  }
  return w;
}

// Sequences per replica for every entry (the busiest replica's). Balanced: the whole micro-batch counts with the
// smallest step max_e a_e + n_e * c_e (each island's step is affine in its micro-batch count; balanced_split.hpp),
// and in island_sequences each island's own sequences, summing to the batch. Equal: the same for all.
// Returns true when it stepped every island with the equal share into `islands` (probe_share: that share), so that
// the job step recomputes only the islands whose share changed.
bool split_batch(const Scenario& s, const ParameterCounts& params, const WanRing& ring, const WanPlan& wan,
                 int replicas, std::array<double, kMaxIslands>& per_replica,
                 IslandSlots<IslandStep, kMaxIslands>& islands, std::array<double, kMaxIslands>& probe_share,
                 std::array<double, kMaxIslands>& island_sequences) {
  const double b = s.training.micro_batch;
  const double total_mb = static_cast<double>(s.training.global_batch) / b;
  const int entries = s.cluster.island_entries;
  for (int e = 0; e < entries; ++e) per_replica[static_cast<std::size_t>(e)] = total_mb / replicas * b;
  // Collectives that every rank joins each micro-batch (FSDP/ZeRO-2 groups, a cross-island pipeline) need equal
  // micro-batch counts; so does a single island.
  const bool lockstep = s.plan.pp_across_islands || s.plan.sharding == Sharding::zero2 ||
                        (s.plan.sharding == Sharding::fsdp && ring.islands > 1);
  if (entries == 1 || s.plan.batch_split == BatchSplit::equal || lockstep) return false;

  std::array<double, kMaxIslands> a{}, c{}, w{};
  double sum_w_over_c = 0, sum_wa_over_c = 0;
  for (int e = 0; e < entries; ++e) {
    const auto i = static_cast<std::size_t>(e);
    probe_share[i] = per_replica[i];
    const IslandStep& st =
        islands.emplace_with(i, [&] { return island_step(s, s.cluster.islands[i], params, per_replica[i], wan.traffic); });
    a[i] = st.fixed_s + wan_gradient_exposed_s(s, wan, st);
    c[i] = std::max(st.stage_microbatch_s, 1e-12);
    w[i] = island_data_parallel(s, e) * s.cluster.islands[i].count;
    sum_w_over_c += w[i] / c[i];
    sum_wa_over_c += w[i] * a[i] / c[i];
  }
  const double target_s = (total_mb + sum_wa_over_c) / sum_w_over_c;
  // Island times beyond what a double resolves (an absurd WAN, a near-zero link) leave nothing to balance: every
  // count below must stay a whole number a double holds exactly, or balanced_microbatches' loop never ends.
  if (!std::isfinite(target_s) || !(total_mb < kMaxExactCount)) return true;
  // The whole-number split with the smallest step [§8.5]; the busiest replica of each entry sets its pace.
  std::array<double, kMaxIslands> n{}, m{};
  balanced_microbatches(a, c, w, entries, total_mb, target_s, n, m);
  for (int e = 0; e < entries; ++e) {
    const auto i = static_cast<std::size_t>(e);
    per_replica[i] = std::ceil(m[i] / w[i]) * b;
    island_sequences[i] = m[i] * b / s.cluster.islands[i].count;
  }
  return true;
}

}  // namespace

double bucketed_exposed_s(double comm_s, double buckets, double window_s, bool overlap) noexcept {
  if (!overlap) return comm_s;
  return std::max(comm_s / buckets, comm_s - window_s * (1.0 - 1.0 / buckets));
}

JobStep synchronous_step(const Scenario& s, const ParameterCounts& params) noexcept {
  JobStep j;
  const WanRing ring = wan_ring(s.cluster);
  const int replicas = total_data_parallel(s);
  const WanPlan wan = plan_wan(s, params, ring, replicas);
  std::array<double, kMaxIslands> per_replica{}, probe_share{}, island_sequences{};
  const bool probed = split_batch(s, params, ring, wan, replicas, per_replica, j.islands, probe_share, island_sequences);
  j.egress_usd_per_byte = ring.egress_usd_per_byte;
  j.data_parallel = replicas;

  const int entries = s.cluster.island_entries;
  std::array<double, kMaxIslands> island_total_s;   // [0, entries): each island's time.total(), summed once
  for (int e = 0; e < entries; ++e) {
    const auto i = static_cast<std::size_t>(e);
    // The balanced split stepped the island with the equal share already: the same inputs give the same step.
    if (!probed || !(probe_share[i] == per_replica[i]))
      j.islands.emplace_with(i, [&] { return island_step(s, s.cluster.islands[i], params, per_replica[i], wan.traffic); });
    j.islands[i].time.wan_s += wan_gradient_exposed_s(s, wan, j.islands[i]);
    island_total_s[i] = j.islands[i].time.total();
    j.step_time_s = std::max(j.step_time_s, island_total_s[i]);
    const int replicas_here = s.plan.pp_across_islands ? replicas : island_data_parallel(s, e);
    // Balanced: the entry's own micro-batches (its busiest replica runs per_replica); otherwise every replica alike.
    j.sequences_per_island[i] = probed && island_sequences[i] > 0 ? island_sequences[i] : per_replica[i] * replicas_here;
  }
  // The balanced shares sum to the batch (unless it has fewer micro-batches than replicas); tokens are what is trained.
  for (int e = 0; e < entries; ++e) {
    const auto i = static_cast<std::size_t>(e);
    j.wait_s[i] = j.step_time_s - island_total_s[i];
    j.wan_s[i] = j.islands[i].time.wan_s;
  }
  for (int e = 0; e < entries; ++e) {
    const auto i = static_cast<std::size_t>(e);
    j.island_tokens_per_s[i] = j.sequences_per_island[i] * s.model.seq_len / j.step_time_s;
  }
  j.tokens_per_s = static_cast<double>(s.training.global_batch) * s.model.seq_len / j.step_time_s;
  j.wan_bytes_per_step = wan.bytes_per_step;
  // Peak per island link: a once-per-step gradient all-reduce must fit the last micro-batch's backward; traffic
  // every micro-batch (FSDP across islands, a cross-island pipeline) runs at its average rate [§12.3].
  if (ring.islands > 1) {
    const double per_island = wan.bytes_per_step / ring.islands;
    double window = j.step_time_s;
    if (wan.gradient_all_reduce_s > 0) {
      window = 0;
      for (int e = 0; e < entries; ++e)
        window = std::max(window, last_microbatch_backward_s(j.islands[static_cast<std::size_t>(e)], s.plan));
    }
    j.wan_peak_bytes_per_s = window > 0 ? per_island / window : 0.0;
  }
  return j;
}

}  // namespace shardmeter::model
