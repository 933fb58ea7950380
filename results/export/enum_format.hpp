#pragma once
// fmt formats a model enum by its one spelling (model/spec/enum_names.hpp), so exporters write
// fmt::format("sharding {}", plan.sharding) with the enum itself and never keep its text.
#include <string_view>

#include <fmt/format.h>

#include "model/spec/enum_names.hpp"

template <class E>
  requires requires { shardmeter::model::EnumNames<E>::values; }
struct fmt::formatter<E> : fmt::formatter<std::string_view> {
  template <class Context>
  auto format(E value, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(shardmeter::model::enum_name(value), ctx);
  }
};
