#pragma once
// The one spelling of every model enum value, as scenario files, JSON, tables and result-file columns write it.
// constexpr tables: readers look names up, the evaluation path never touches them.
#include <array>
#include <span>
#include <string_view>

#include "model/spec/enums.hpp"
#include "model/spec/reject_reason.hpp"

namespace shardmeter::model {

template <class E>
struct NamedValue {
  std::string_view name;
  E value;
};

// EnumNames<E>::values lists every value of E with its name, in declaration order.
template <class E>
struct EnumNames;

template <>
struct EnumNames<FfnType> {
  static constexpr std::array<NamedValue<FfnType>, 2> values{{{"gelu", FfnType::gelu}, {"swiglu", FfnType::swiglu}}};
};
template <>
struct EnumNames<NormType> {
  static constexpr std::array<NamedValue<NormType>, 2> values{
      {{"layernorm", NormType::layernorm}, {"rmsnorm", NormType::rmsnorm}}};
};
template <>
struct EnumNames<PositionEmbedding> {
  static constexpr std::array<NamedValue<PositionEmbedding>, 3> values{{{"learned", PositionEmbedding::learned},
                                                                        {"rope", PositionEmbedding::rope},
                                                                        {"alibi", PositionEmbedding::alibi}}};
};
template <>
struct EnumNames<Precision> {
  static constexpr std::array<NamedValue<Precision>, 3> values{
      {{"bf16", Precision::bf16}, {"fp16", Precision::fp16}, {"fp8", Precision::fp8}}};
};
template <>
struct EnumNames<Fp8Recipe> {
  static constexpr std::array<NamedValue<Fp8Recipe>, 4> values{{{"auto", Fp8Recipe::stack_default},
                                                                {"delayed", Fp8Recipe::delayed},
                                                                {"current", Fp8Recipe::current},
                                                                {"mxfp8", Fp8Recipe::mxfp8}}};
};
template <>
struct EnumNames<Optimizer> {
  static constexpr std::array<NamedValue<Optimizer>, 4> values{{{"adamw", Optimizer::adamw},
                                                                {"adamw_8bit", Optimizer::adamw_8bit},
                                                                {"sgd_momentum", Optimizer::sgd_momentum},
                                                                {"lion", Optimizer::lion}}};
};
template <>
struct EnumNames<StateDtype> {
  static constexpr std::array<NamedValue<StateDtype>, 2> values{{{"fp32", StateDtype::fp32}, {"bf16", StateDtype::bf16}}};
};
template <>
struct EnumNames<MasterWeights> {
  static constexpr std::array<NamedValue<MasterWeights>, 2> values{
      {{"fp32", MasterWeights::fp32}, {"none", MasterWeights::none}}};
};
template <>
struct EnumNames<Sharding> {
  static constexpr std::array<NamedValue<Sharding>, 5> values{{{"none", Sharding::none},
                                                               {"zero1", Sharding::zero1},
                                                               {"zero2", Sharding::zero2},
                                                               {"fsdp", Sharding::fsdp},
                                                               {"hsdp", Sharding::hsdp}}};
};
template <>
struct EnumNames<Recompute> {
  static constexpr std::array<NamedValue<Recompute>, 4> values{{{"none", Recompute::none},
                                                                 {"selective", Recompute::selective},
                                                                 {"full", Recompute::full},
                                                                 {"op_selective", Recompute::op_selective}}};
};
template <>
struct EnumNames<AttentionKernel> {
  static constexpr std::array<NamedValue<AttentionKernel>, 2> values{
      {{"flash", AttentionKernel::flash}, {"standard", AttentionKernel::standard}}};
};
template <>
struct EnumNames<Stack> {
  static constexpr std::array<NamedValue<Stack>, kStackCount> values{{{"megatron", Stack::megatron},
                                                                      {"megatron_te", Stack::megatron_te},
                                                                      {"torch_fsdp2", Stack::torch_fsdp2},
                                                                      {"torch_fsdp1", Stack::torch_fsdp1},
                                                                      {"deepspeed", Stack::deepspeed},
                                                                      {"deepspeed_2021", Stack::deepspeed_2021}}};
};
template <>
struct EnumNames<SyncMode> {
  static constexpr std::array<NamedValue<SyncMode>, 2> values{
      {{"synchronous", SyncMode::synchronous}, {"diloco", SyncMode::diloco}}};
};
template <>
struct EnumNames<BatchSplit> {
  static constexpr std::array<NamedValue<BatchSplit>, 2> values{
      {{"balanced", BatchSplit::balanced}, {"equal", BatchSplit::equal}}};
};
template <>
struct EnumNames<DilocoFastIslands> {
  static constexpr std::array<NamedValue<DilocoFastIslands>, 2> values{
      {{"wait", DilocoFastIslands::wait}, {"more_steps", DilocoFastIslands::more_steps}}};
};
template <>
struct EnumNames<EpDispatcher> {
  static constexpr std::array<NamedValue<EpDispatcher>, 2> values{
      {{"alltoall", EpDispatcher::alltoall}, {"deepep", EpDispatcher::deepep}}};
};
template <>
struct EnumNames<MoeRecompute> {
  static constexpr std::array<NamedValue<MoeRecompute>, 3> values{
      {{"none", MoeRecompute::none}, {"activation", MoeRecompute::activation}, {"layer", MoeRecompute::layer}}};
};
template <>
struct EnumNames<PipelineSchedule> {
  static constexpr std::array<NamedValue<PipelineSchedule>, 2> values{
      {{"1f1b", PipelineSchedule::one_f_one_b}, {"dualpipe", PipelineSchedule::dualpipe}}};
};
template <>
struct EnumNames<RecomputeModule> {
  static constexpr std::array<NamedValue<RecomputeModule>, 7> values{
      {{"core_attn", RecomputeModule::core_attn}, {"mlp", RecomputeModule::mlp}, {"moe_act", RecomputeModule::moe_act},
       {"layernorm", RecomputeModule::layernorm}, {"mla_up_proj", RecomputeModule::mla_up_proj},
       {"moe", RecomputeModule::moe}, {"shared_experts", RecomputeModule::shared_experts}}};
};
template <>
struct EnumNames<MoeRouter> {
  static constexpr std::array<NamedValue<MoeRouter>, 2> values{
      {{"softmax", MoeRouter::softmax}, {"sigmoid", MoeRouter::sigmoid}}};
};
template <>
struct EnumNames<CollectiveAlgorithm> {
  static constexpr std::array<NamedValue<CollectiveAlgorithm>, 6> values{{{"none", CollectiveAlgorithm::none},
                                                                          {"ring", CollectiveAlgorithm::ring},
                                                                          {"ring_ll", CollectiveAlgorithm::ring_ll},
                                                                          {"tree", CollectiveAlgorithm::tree},
                                                                          {"tree_ll", CollectiveAlgorithm::tree_ll},
                                                                          {"measured", CollectiveAlgorithm::measured}}};
};
template <>
struct EnumNames<ScaleoutTopology> {
  static constexpr std::array<NamedValue<ScaleoutTopology>, 2> values{
      {{"rail_optimized", ScaleoutTopology::rail_optimized}, {"top_of_rack", ScaleoutTopology::top_of_rack}}};
};
template <>
struct EnumNames<Bottleneck> {
  static constexpr std::array<NamedValue<Bottleneck>, 10> values{{{"compute", Bottleneck::compute},
                                                                 {"memory_bandwidth", Bottleneck::memory_bandwidth},
                                                                 {"tp_comm", Bottleneck::tp_comm},
                                                                 {"pp_comm", Bottleneck::pp_comm},
                                                                 {"pipeline_bubble", Bottleneck::pipeline_bubble},
                                                                 {"dp_comm", Bottleneck::dp_comm},
                                                                 {"memory_capacity", Bottleneck::memory_capacity},
                                                                 {"wan", Bottleneck::wan},
                                                                 {"straggler", Bottleneck::straggler},
                                                                 {"ep_comm", Bottleneck::ep_comm}}};
};
template <>
struct EnumNames<RejectReason> {
  static constexpr std::array<NamedValue<RejectReason>, kRejectReasonCount> values{{
      {"none", RejectReason::none},
      {"parallel_degrees_do_not_divide_gpus", RejectReason::parallel_degrees_do_not_divide_gpus},
      {"heads_not_divisible_by_tp", RejectReason::heads_not_divisible_by_tp},
      {"kv_heads_not_divisible_by_tp", RejectReason::kv_heads_not_divisible_by_tp},
      {"ffn_not_divisible_by_tp", RejectReason::ffn_not_divisible_by_tp},
      {"layers_not_divisible_by_pipeline", RejectReason::layers_not_divisible_by_pipeline},
      {"pipeline_split_invalid", RejectReason::pipeline_split_invalid},
      {"seq_not_divisible_by_cp", RejectReason::seq_not_divisible_by_cp},
      {"global_batch_not_divisible", RejectReason::global_batch_not_divisible},
      {"interleave_needs_pipeline", RejectReason::interleave_needs_pipeline},
      {"shard_group_invalid", RejectReason::shard_group_invalid},
      {"island_not_whole_nodes", RejectReason::island_not_whole_nodes},
      {"pipeline_exceeds_islands", RejectReason::pipeline_exceeds_islands},
      {"heterogeneous_plan_invalid", RejectReason::heterogeneous_plan_invalid},
      {"diloco_needs_islands", RejectReason::diloco_needs_islands},
      {"wan_link_missing", RejectReason::wan_link_missing},
      {"experts_not_divisible_by_ep", RejectReason::experts_not_divisible_by_ep},
      {"expert_folding_does_not_divide_gpus", RejectReason::expert_folding_does_not_divide_gpus},
      {"fp8_not_supported", RejectReason::fp8_not_supported},
      {"out_of_memory", RejectReason::out_of_memory},
      {"goodput_below_floor", RejectReason::goodput_below_floor},
      {"offload_not_supported", RejectReason::offload_not_supported},
  }};
};

template <class E>
constexpr std::span<const NamedValue<E>> enum_names() noexcept {
  return EnumNames<E>::values;
}

// The name of a value; "unknown" for a value outside the table (never for a value of the enum's declaration).
template <class E>
constexpr std::string_view enum_name(E value) noexcept {
  for (const NamedValue<E>& nv : EnumNames<E>::values)
    if (nv.value == value) return nv.name;
  return "unknown";
}

// Every table lists its enum's values in declaration order, so value k sits at index k.
template <class E>
constexpr bool names_in_declaration_order() noexcept {
  for (std::size_t i = 0; i < EnumNames<E>::values.size(); ++i)
    if (static_cast<std::size_t>(EnumNames<E>::values[i].value) != i) return false;
  return true;
}
static_assert(names_in_declaration_order<RejectReason>() && names_in_declaration_order<Bottleneck>() &&
              names_in_declaration_order<Sharding>() && names_in_declaration_order<Recompute>() &&
              names_in_declaration_order<Stack>() && names_in_declaration_order<StateDtype>() &&
              names_in_declaration_order<MasterWeights>() &&
              names_in_declaration_order<PipelineSchedule>());

}  // namespace shardmeter::model
