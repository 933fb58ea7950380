#include "child_coverage.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

// The counters section's bounds, defined by the linker when the section exists; null otherwise.
extern "C" {
extern std::uint8_t __start___sancov_cntrs[] __attribute__((weak));
extern std::uint8_t __stop___sancov_cntrs[] __attribute__((weak));
}

namespace shardmeter::fuzz {

namespace {

std::size_t counters_size() {
  if (__start___sancov_cntrs == nullptr || __stop___sancov_cntrs == nullptr) return 0;
  return static_cast<std::size_t>(__stop___sancov_cntrs - __start___sancov_cntrs);
}

// Anonymous shared memory, mapped once before the first fork, so parent and children see the same bytes.
std::uint8_t* shared() {
  static std::uint8_t* const memory = [] {
    const std::size_t n = counters_size();
    if (n == 0) return static_cast<std::uint8_t*>(nullptr);
    void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<std::uint8_t*>(p);
  }();
  return memory;
}

}  // namespace

void child_coverage_reset() {
  if (std::uint8_t* s = shared()) std::memset(s, 0, counters_size());
}

void child_coverage_copy_out() {
  if (std::uint8_t* s = shared()) std::memcpy(s, __start___sancov_cntrs, counters_size());
}

void child_coverage_merge() {
  if (const std::uint8_t* s = shared())
    for (std::size_t i = 0, n = counters_size(); i < n; ++i)
      __start___sancov_cntrs[i] = std::max(__start___sancov_cntrs[i], s[i]);
}

}  // namespace shardmeter::fuzz
