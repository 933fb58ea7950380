#include "src/enum_names.hpp"

#include <array>

#include "results/columns.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

// A table named through results::to_string, built once.
template <class E, std::size_t N>
std::array<NamedValue<E>, N> named_by_results(const std::array<E, N>& values) {
  std::array<NamedValue<E>, N> table{};
  for (std::size_t i = 0; i < N; ++i) table[i] = NamedValue<E>{results::to_string(values[i]), values[i]};
  return table;
}

}  // namespace

template <>
std::span<const NamedValue<m::FfnType>> enum_names<m::FfnType>() {
  static constexpr std::array<NamedValue<m::FfnType>, 2> t{{{"gelu", m::FfnType::gelu}, {"swiglu", m::FfnType::swiglu}}};
  return t;
}
template <>
std::span<const NamedValue<m::NormType>> enum_names<m::NormType>() {
  static constexpr std::array<NamedValue<m::NormType>, 2> t{
      {{"layernorm", m::NormType::layernorm}, {"rmsnorm", m::NormType::rmsnorm}}};
  return t;
}
template <>
std::span<const NamedValue<m::PositionEmbedding>> enum_names<m::PositionEmbedding>() {
  static constexpr std::array<NamedValue<m::PositionEmbedding>, 3> t{{{"learned", m::PositionEmbedding::learned},
                                                                       {"rope", m::PositionEmbedding::rope},
                                                                       {"alibi", m::PositionEmbedding::alibi}}};
  return t;
}
template <>
std::span<const NamedValue<m::Precision>> enum_names<m::Precision>() {
  static const auto t = named_by_results(std::array{m::Precision::bf16, m::Precision::fp16, m::Precision::fp8});
  return t;
}
template <>
std::span<const NamedValue<m::Optimizer>> enum_names<m::Optimizer>() {
  static constexpr std::array<NamedValue<m::Optimizer>, 4> t{{{"adamw", m::Optimizer::adamw},
                                                               {"adamw_8bit", m::Optimizer::adamw_8bit},
                                                               {"sgd_momentum", m::Optimizer::sgd_momentum},
                                                               {"lion", m::Optimizer::lion}}};
  return t;
}
template <>
std::span<const NamedValue<m::Sharding>> enum_names<m::Sharding>() {
  static const auto t = named_by_results(
      std::array{m::Sharding::none, m::Sharding::zero1, m::Sharding::zero2, m::Sharding::fsdp, m::Sharding::hsdp});
  return t;
}
template <>
std::span<const NamedValue<m::Recompute>> enum_names<m::Recompute>() {
  static const auto t =
      named_by_results(std::array{m::Recompute::none, m::Recompute::selective, m::Recompute::full});
  return t;
}
template <>
std::span<const NamedValue<m::AttentionKernel>> enum_names<m::AttentionKernel>() {
  static const auto t = named_by_results(std::array{m::AttentionKernel::flash, m::AttentionKernel::standard});
  return t;
}
template <>
std::span<const NamedValue<m::SyncMode>> enum_names<m::SyncMode>() {
  static const auto t = named_by_results(std::array{m::SyncMode::synchronous, m::SyncMode::diloco});
  return t;
}
template <>
std::span<const NamedValue<m::BatchSplit>> enum_names<m::BatchSplit>() {
  static constexpr std::array<NamedValue<m::BatchSplit>, 2> t{
      {{"balanced", m::BatchSplit::balanced}, {"equal", m::BatchSplit::equal}}};
  return t;
}
template <>
std::span<const NamedValue<m::DilocoFastIslands>> enum_names<m::DilocoFastIslands>() {
  static constexpr std::array<NamedValue<m::DilocoFastIslands>, 2> t{
      {{"wait", m::DilocoFastIslands::wait}, {"more_steps", m::DilocoFastIslands::more_steps}}};
  return t;
}
template <>
std::span<const NamedValue<GradReduceDtype>> enum_names<GradReduceDtype>() {
  static constexpr std::array<NamedValue<GradReduceDtype>, 3> t{
      {{"bf16", GradReduceDtype::bf16}, {"fp16", GradReduceDtype::fp16}, {"fp32", GradReduceDtype::fp32}}};
  return t;
}

int grad_reduce_bytes(GradReduceDtype dtype) { return dtype == GradReduceDtype::fp32 ? 4 : 2; }

}  // namespace shardmeter::cli
