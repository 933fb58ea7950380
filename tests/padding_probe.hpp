#pragma once
// Which bytes of a trivially copyable type are padding: the bytes its default initialisation leaves alone when
// every member has a default initialiser (as every model spec and estimate struct does). The object is built twice,
// over 0x00 and over 0xFF; the bytes that differ afterwards were not written. Compiler barriers keep the fills
// and the reads real, so the probe sees what the machine did.
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

namespace shardmeter::test {

inline void compiler_barrier(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

template <class T>
std::vector<bool> padding_mask() {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  std::vector<bool> mask(sizeof(T), false);
  alignas(T) static unsigned char zeros[sizeof(T)];
  alignas(T) static unsigned char ones[sizeof(T)];
  std::memset(zeros, 0x00, sizeof zeros);
  std::memset(ones, 0xFF, sizeof ones);
  compiler_barrier(zeros);
  compiler_barrier(ones);
  ::new (static_cast<void*>(zeros)) T;
  ::new (static_cast<void*>(ones)) T;
  compiler_barrier(zeros);
  compiler_barrier(ones);
  for (std::size_t i = 0; i < sizeof(T); ++i) mask[i] = zeros[i] != ones[i];
  return mask;
}

// The offsets of the padding bytes of `value` that are not zero.
template <class T>
std::vector<std::size_t> nonzero_padding(const T& value) {
  static const std::vector<bool> mask = padding_mask<T>();
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof bytes);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    if (mask[i] && bytes[i] != 0) out.push_back(i);
  return out;
}

}  // namespace shardmeter::test
