#include "search/patch.hpp"

#include <cstring>

namespace shardmeter::search {

namespace {
const std::byte* bytes_of(const model::Scenario& s) { return reinterpret_cast<const std::byte*>(&s); }
}  // namespace

void Patch::apply(model::Scenario& scenario) const noexcept {
  auto* out = reinterpret_cast<std::byte*>(&scenario);
  const std::byte* in = bytes.data();
  for (const PatchRange& r : ranges) {
    std::memcpy(out + r.offset, in, r.size);
    in += r.size;
  }
}

Patch make_patch(const model::Scenario& base, const model::Scenario& modified, std::size_t merge_gap) {
  const std::byte* a = bytes_of(base);
  const std::byte* b = bytes_of(modified);
  constexpr std::size_t n = sizeof(model::Scenario);
  Patch patch;
  std::size_t i = 0;
  while (i < n) {
    if (a[i] == b[i]) {
      ++i;
      continue;
    }
    // A run of differing bytes; extend it across gaps of <= merge_gap equal bytes.
    const std::size_t start = i;
    std::size_t end = i + 1;  // one past the last differing byte
    std::size_t j = end;
    while (j < n) {
      if (a[j] != b[j]) {
        end = ++j;
      } else if (j - end < merge_gap) {
        ++j;
      } else {
        break;
      }
    }
    patch.ranges.push_back(PatchRange{static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end - start)});
    patch.bytes.insert(patch.bytes.end(), b + start, b + end);
    i = end;
  }
  return patch;
}

bool same_bytes(const model::Scenario& a, const model::Scenario& b) noexcept {
  return std::memcmp(&a, &b, sizeof(model::Scenario)) == 0;
}

}  // namespace shardmeter::search
