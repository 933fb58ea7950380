#pragma once
// Scenarios are compared and hashed byte-wise by the search, so their padding bytes must be deterministic.
// reset_zeroed() zeroes every byte of a trivially copyable value, then runs its default member initialisers.
#include <cstring>
#include <new>
#include <type_traits>

namespace shardmeter::cli {

template <class T>
void reset_zeroed(T& value) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  std::memset(static_cast<void*>(&value), 0, sizeof value);
  ::new (static_cast<void*>(&value)) T;  // default-initialisation: members get their initialisers, padding stays 0
}

}  // namespace shardmeter::cli
