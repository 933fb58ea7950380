#pragma once
// Text names of the model's enums as scenario files spell them. Where results/columns.hpp already names an
// enum (sharding, recompute, precision, ...), these tables take the name from there, so YAML, JSON, tables
// and file columns all use one spelling.
#include <span>
#include <string_view>
#include <vector>

#include "model/enums.hpp"

namespace shardmeter::cli {

template <class E>
struct NamedValue {
  std::string_view name;
  E value;
};

// Every value of E with its name, in declaration order. Specialised in enum_names.cpp for each enum below.
template <class E>
std::span<const NamedValue<E>> enum_names();

template <class E>
std::vector<std::string_view> enum_name_list() {
  std::vector<std::string_view> names;
  for (const NamedValue<E>& nv : enum_names<E>()) names.push_back(nv.name);
  return names;
}

template <class E>
std::string_view enum_name(E value) {
  for (const NamedValue<E>& nv : enum_names<E>())
    if (nv.value == value) return nv.name;
  return "unknown";
}

template <> std::span<const NamedValue<model::FfnType>> enum_names<model::FfnType>();
template <> std::span<const NamedValue<model::NormType>> enum_names<model::NormType>();
template <> std::span<const NamedValue<model::PositionEmbedding>> enum_names<model::PositionEmbedding>();
template <> std::span<const NamedValue<model::Precision>> enum_names<model::Precision>();
template <> std::span<const NamedValue<model::Optimizer>> enum_names<model::Optimizer>();
template <> std::span<const NamedValue<model::Sharding>> enum_names<model::Sharding>();
template <> std::span<const NamedValue<model::Recompute>> enum_names<model::Recompute>();
template <> std::span<const NamedValue<model::AttentionKernel>> enum_names<model::AttentionKernel>();
template <> std::span<const NamedValue<model::SyncMode>> enum_names<model::SyncMode>();
template <> std::span<const NamedValue<model::BatchSplit>> enum_names<model::BatchSplit>();
template <> std::span<const NamedValue<model::DilocoFastIslands>> enum_names<model::DilocoFastIslands>();

// Gradient all-reduce dtype (training.grad_reduce_dtype) -> bytes per element on the wire.
enum class GradReduceDtype { bf16, fp16, fp32 };
template <> std::span<const NamedValue<GradReduceDtype>> enum_names<GradReduceDtype>();
int grad_reduce_bytes(GradReduceDtype dtype);

}  // namespace shardmeter::cli
