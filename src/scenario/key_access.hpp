#pragma once
// Builds a KeyAccess (src/scenario/key_table.hpp) for a member of a section's struct, so that a row of the key table
// names its target once and reading, conversion, bounds and the drift test all follow from it:
//
//   member<&model::PlanSpec::tp>                              an int read as written, within the key's bounds
//   member<&GpuEntry::gpu, &model::GpuSpec::hbm_efficiency>   a nested member
//   converted<&model::ms_to_s, &model::WanLink::latency_s>    a number in the key's unit, stored in SI
//   mapped<&grad_reduce_bytes, &model::TrainingSpec::grad_reduce_bytes>   an enum name stored as what it maps to
//   choice<&model::DilocoSpec::outer_bits>                    an int that must be one of the key's type, "32 | 16"
//
// Only the table's own file (src/scenario/scenario_keys.cpp) includes this header.
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "src/scenario/enum_names.hpp"
#include "src/scenario/key_reader.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace key_access {

// The member reached from an object by a chain of member pointers.
template <auto... Path>
struct MemberPath;
template <class C, class T, T C::*M>
struct MemberPath<M> {
  using Object = C;
  using Value = T;
  static T& get(C& object) { return object.*M; }
  static const T& get(const C& object) { return object.*M; }
};
template <class C, class T, T C::*M, auto Next, auto... Rest>
struct MemberPath<M, Next, Rest...> {
  using Inner = MemberPath<Next, Rest...>;
  static_assert(std::is_same_v<T, typename Inner::Object>, "each member pointer continues from the previous member");
  using Object = C;
  using Value = typename Inner::Value;
  static Value& get(C& object) { return Inner::get(object.*M); }
  static const Value& get(const C& object) { return Inner::get(object.*M); }
};

// How a value of type T is written in a file.
template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_enum_v<T>) return join(enum_name_list<T>(), " | ");
  else if constexpr (std::is_integral_v<T>) return "int";
  else if constexpr (std::is_floating_point_v<T>) return "number";
  else return "text";
}

template <class T>
T read_as(const KeySpec& key, const YamlField& value) {
  if constexpr (std::is_same_v<T, bool>) return value.as_bool();
  else if constexpr (std::is_enum_v<T>) return value.as_enum<T>();
  else if constexpr (std::is_same_v<T, std::int64_t>) return value.as_int64(key.bounds);
  else if constexpr (std::is_same_v<T, int>) return value.as_int(key.bounds);
  else if constexpr (std::is_same_v<T, double>) return value.as_double(key.bounds);
  else return value.as_string();
}

template <class T>
std::string show_value(const T& v) {
  if constexpr (std::is_enum_v<T>) return std::string(enum_name(v));
  else return fmt::format("{}", v);
}

// The value a codec writes: Plain as read; Converted through a unit conversion; Mapped through a function of the
// value read; Choice an int that the key's type lists.
struct Plain {
  template <class T>
  using Read = T;
  template <class T>
  static T store(const KeySpec&, const YamlField&, T v) { return v; }
};
template <double (*ToSi)(double)>
struct Converted {
  template <class T>
  using Read = double;
  template <class T>
  static T store(const KeySpec&, const YamlField&, double v) { return ToSi(v); }
};
template <class F>
struct ArgumentOf;
template <class R, class A>
struct ArgumentOf<R (*)(A)> {
  using type = A;
};
template <class From, auto To>
struct Mapped {
  template <class T>
  using Read = From;
  template <class T>
  static T store(const KeySpec&, const YamlField&, From v) { return To(v); }
};
struct Choice {
  template <class T>
  using Read = int;
  template <class T>
  static T store(const KeySpec& key, const YamlField& value, int v) {
    std::string_view rest = key.type;
    while (!rest.empty()) {
      const auto bar = rest.find(" | ");
      if (rest.substr(0, bar) == std::to_string(v)) return v;
      rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 3);
    }
    throw value.error("is not one of " + std::string(key.type));
  }
};

template <class Codec, auto... Path>
struct Access {
  using P = MemberPath<Path...>;
  using Object = typename P::Object;
  using Value = typename P::Value;
  using Read = typename Codec::template Read<Value>;

  static std::string type() { return type_name<Read>(); }
  static void read(const KeySpec& key, const YamlField& value, void* object) {
    P::get(*static_cast<Object*>(object)) = Codec::template store<Value>(key, value, read_as<Read>(key, value));
  }
  static std::string show(const void* object) {
    return show_value(P::get(*static_cast<const Object*>(object)));
  }
  static std::string model_default() {
    const Object object{};
    return show(&object);
  }
  static std::string table_default(const KeySpec& key) {
    Object object{};
    apply_default(key, &object);
    return show(&object);
  }
  static constexpr KeyAccess access{&object_tag<Object>, &type, &read, &show, &model_default, &table_default};
};

}  // namespace key_access

template <auto... Path>
inline constexpr const KeyAccess* member = &key_access::Access<key_access::Plain, Path...>::access;
template <double (*ToSi)(double), auto... Path>
inline constexpr const KeyAccess* converted = &key_access::Access<key_access::Converted<ToSi>, Path...>::access;
template <auto To, auto... Path>
inline constexpr const KeyAccess* mapped =
    &key_access::Access<key_access::Mapped<typename key_access::ArgumentOf<decltype(To)>::type, To>, Path...>::access;
template <auto... Path>
inline constexpr const KeyAccess* choice = &key_access::Access<key_access::Choice, Path...>::access;

}  // namespace shardmeter::cli
