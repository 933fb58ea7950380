#pragma once
// Two estimates are the same when every field is: doubles bit for bit (so NaN equals NaN), padding ignored. A
// memcmp of whole estimates would also compare padding bytes, whose content neither the language nor the model
// promises. The member counts below make a new field fail to compile here until it is compared too.
#include <bit>
#include <cstddef>
#include <cstdint>

#include "model/spec/estimate.hpp"

namespace shardmeter::test {

namespace detail {

// Converts to any member type: T{AnyMember{}, ...} compiles with as many of them as T has members.
struct AnyMember {
  template <class T>
  operator T() const noexcept;  // never defined: only used in unevaluated requires-expressions
};

template <class T, class... Members>
constexpr std::size_t member_count() {
  if constexpr (requires { T{Members{}..., AnyMember{}}; }) {
    return member_count<T, Members..., AnyMember>();
  } else {
    return sizeof...(Members);
  }
}

inline bool same(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }
template <class E>
bool same(E a, E b) {
  return a == b;
}

inline bool same(const model::TimeBreakdown& a, const model::TimeBreakdown& b) {
  static_assert(member_count<model::TimeBreakdown>() == 12, "compare the new TimeBreakdown field below");
  return same(a.compute_s, b.compute_s) && same(a.recompute_s, b.recompute_s) &&
         same(a.memory_bound_s, b.memory_bound_s) && same(a.tp_comm_s, b.tp_comm_s) &&
         same(a.pp_comm_s, b.pp_comm_s) && same(a.bubble_s, b.bubble_s) && same(a.dp_comm_s, b.dp_comm_s) &&
         same(a.optimizer_s, b.optimizer_s) && same(a.wan_s, b.wan_s) && same(a.straggler_s, b.straggler_s) &&
         same(a.ep_comm_s, b.ep_comm_s) && same(a.host_offload_s, b.host_offload_s);
}

inline bool same(const model::MemoryBreakdown& a, const model::MemoryBreakdown& b) {
  static_assert(member_count<model::MemoryBreakdown>() == 9, "compare the new MemoryBreakdown field below");
  return same(a.weights_bytes, b.weights_bytes) && same(a.gradients_bytes, b.gradients_bytes) &&
         same(a.optimizer_bytes, b.optimizer_bytes) && same(a.activations_bytes, b.activations_bytes) &&
         same(a.fsdp_buffers_bytes, b.fsdp_buffers_bytes) && same(a.logits_bytes, b.logits_bytes) &&
         same(a.outer_state_bytes, b.outer_state_bytes) && same(a.runtime_overhead_bytes, b.runtime_overhead_bytes) &&
         same(a.expert_states_bytes, b.expert_states_bytes);
}

inline bool same(const model::DataParallelDegrees& a, const model::DataParallelDegrees& b) {
  static_assert(member_count<model::DataParallelDegrees>() == 4, "compare the new DataParallelDegrees field below");
  return a.data_parallel == b.data_parallel && a.dp_shard == b.dp_shard && a.dp_replicate == b.dp_replicate &&
         a.microbatches == b.microbatches;
}

inline bool same(const model::CollectiveAlgorithms& a, const model::CollectiveAlgorithms& b) {
  static_assert(member_count<model::CollectiveAlgorithms>() == 3, "compare the new CollectiveAlgorithms field below");
  return a.tp == b.tp && a.cp == b.cp && a.dp == b.dp;
}

inline bool same(const model::IslandEstimate& a, const model::IslandEstimate& b) {
  static_assert(member_count<model::IslandEstimate>() == 13, "compare the new IslandEstimate field below");
  return same(a.tokens_per_s, b.tokens_per_s) && same(a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu) &&
         same(a.utilization, b.utilization) && same(a.batch_share, b.batch_share) &&
         same(a.step_time_s, b.step_time_s) && same(a.memory_per_gpu_bytes, b.memory_per_gpu_bytes) &&
         same(a.memory_capacity_bytes, b.memory_capacity_bytes) && same(a.bottleneck, b.bottleneck) &&
         same(a.feasible, b.feasible) && same(a.time, b.time) && same(a.memory, b.memory) &&
         same(a.degrees, b.degrees) && same(a.collectives, b.collectives);
}

inline bool same(const model::GoodputParts& a, const model::GoodputParts& b) {
  static_assert(member_count<model::GoodputParts>() == 10, "compare the new GoodputParts field below");
  return a.per_island == b.per_island && same(a.failures_per_hour, b.failures_per_hour) &&
         same(a.mtbf_s, b.mtbf_s) && same(a.checkpoint_write_s, b.checkpoint_write_s) &&
         same(a.checkpoint_loss, b.checkpoint_loss) && same(a.rework_loss, b.rework_loss) &&
         same(a.restart_loss, b.restart_loss) && same(a.island_out_loss, b.island_out_loss) &&
         a.spot_preemptions == b.spot_preemptions && same(a.unfloored, b.unfloored);
}

}  // namespace detail

inline bool same_estimate(const model::Estimate& a, const model::Estimate& b) {
  using detail::same;
  static_assert(detail::member_count<model::Estimate>() == 48, "compare the new Estimate field below");
  bool islands = true;
  for (std::size_t i = 0; i < a.islands.size(); ++i) islands = islands && same(a.islands[i], b.islands[i]);
  return islands && same(a.feasible, b.feasible) && same(a.reject_reason, b.reject_reason) &&
         same(a.bottleneck, b.bottleneck) && same(a.step_time_s, b.step_time_s) &&
         same(a.tokens_per_step, b.tokens_per_step) && same(a.tokens_per_s, b.tokens_per_s) &&
         same(a.effective_tokens_per_s, b.effective_tokens_per_s) && same(a.token_efficiency, b.token_efficiency) &&
         same(a.batch_efficiency, b.batch_efficiency) && same(a.diloco_efficiency, b.diloco_efficiency) &&
         same(a.optimizer_batch_tokens, b.optimizer_batch_tokens) &&
         same(a.noise_batch_tokens, b.noise_batch_tokens) && same(a.optimal_batch_tokens, b.optimal_batch_tokens) &&
         same(a.trained_tokens, b.trained_tokens) && same(a.warnings, b.warnings) &&
         same(a.wan_peak_bytes_per_s, b.wan_peak_bytes_per_s) && same(a.goodput_parts, b.goodput_parts) &&
         same(a.cost_usd_per_effective_million_tokens, b.cost_usd_per_effective_million_tokens) &&
         same(a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu) && same(a.tflops_per_gpu, b.tflops_per_gpu) &&
         same(a.mfu, b.mfu) && same(a.hfu, b.hfu) && same(a.mfu_peak_precision, b.mfu_peak_precision) && same(a.compute_utilization, b.compute_utilization) &&
         same(a.exposed_comm_fraction, b.exposed_comm_fraction) &&
         same(a.model_flops_per_step, b.model_flops_per_step) &&
         same(a.hardware_flops_per_step, b.hardware_flops_per_step) &&
         same(a.memory_per_gpu_bytes, b.memory_per_gpu_bytes) &&
         same(a.memory_capacity_bytes, b.memory_capacity_bytes) && same(a.time, b.time) &&
         same(a.memory, b.memory) && same(a.wan_bytes_per_step, b.wan_bytes_per_step) &&
         same(a.wan_bytes_per_outer_step, b.wan_bytes_per_outer_step) &&
         same(a.wan_reduction_vs_sync, b.wan_reduction_vs_sync) && same(a.goodput, b.goodput) &&
         same(a.checkpoint_interval_s, b.checkpoint_interval_s) && same(a.gpus, b.gpus) &&
         same(a.cost_usd_per_hour, b.cost_usd_per_hour) &&
         same(a.cost_usd_per_million_tokens, b.cost_usd_per_million_tokens) &&
         same(a.wall_clock_s, b.wall_clock_s) && same(a.gpu_usd_total, b.gpu_usd_total) &&
         same(a.egress_usd_total, b.egress_usd_total) && same(a.total_cost_usd, b.total_cost_usd) &&
         same(a.island_entries, b.island_entries) && same(a.degrees, b.degrees) &&
         same(a.parameters_total, b.parameters_total) && same(a.parameters_active, b.parameters_active);
}

}  // namespace shardmeter::test
