#pragma once
// Spellings that exist only in scenario files. Model enums are spelled once, in model/spec/enum_names.hpp.
#include <span>
#include <string_view>
#include <vector>

#include "model/spec/enum_names.hpp"

namespace shardmeter::cli {

using model::enum_name;
using model::enum_names;
using model::NamedValue;

template <class E>
std::vector<std::string_view> enum_name_list() {
  std::vector<std::string_view> names;
  for (const NamedValue<E>& nv : enum_names<E>()) names.push_back(nv.name);
  return names;
}

// Gradient all-reduce dtype (training.grad_reduce_dtype) -> bytes per element on the wire.
enum class GradReduceDtype { bf16, fp16, fp32 };
int grad_reduce_bytes(GradReduceDtype dtype);

}  // namespace shardmeter::cli

namespace shardmeter::model {
template <>
struct EnumNames<cli::GradReduceDtype> {
  static constexpr std::array<NamedValue<cli::GradReduceDtype>, 3> values{{{"bf16", cli::GradReduceDtype::bf16},
                                                                          {"fp16", cli::GradReduceDtype::fp16},
                                                                          {"fp32", cli::GradReduceDtype::fp32}}};
};
}  // namespace shardmeter::model
