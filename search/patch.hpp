#pragma once
// A candidate's value on one axis, as the bytes where it differs from the base scenario. The search never
// names a scenario field: an axis value is whatever the caller parsed into a Scenario, diffed against the base.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/spec/scenario.hpp"

namespace shardmeter::search {

struct PatchRange {
  std::uint32_t offset = 0;  // byte offset inside model::Scenario
  std::uint32_t size = 0;
  friend bool operator==(const PatchRange&, const PatchRange&) = default;
};

// Byte ranges of a Scenario and their new contents. Applying a patch is a few memcpy calls.
struct Patch {
  std::vector<PatchRange> ranges;   // sorted by offset, disjoint
  std::vector<std::byte> bytes;     // the ranges' contents, concatenated in range order

  void apply(model::Scenario& scenario) const noexcept;
  std::size_t size_bytes() const noexcept { return bytes.size(); }
  bool empty() const noexcept { return ranges.empty(); }
};

// Ranges closer than this are merged (copying a few unchanged bytes is cheaper than another memcpy call).
inline constexpr std::size_t kPatchMergeGapBytes = 8;

// The bytes where `modified` differs from `base`, merged across gaps of at most `merge_gap` equal bytes.
// Both scenarios must have zero padding bytes (as the loader builds them), or padding shows up as a difference.
Patch make_patch(const model::Scenario& base, const model::Scenario& modified,
                 std::size_t merge_gap = kPatchMergeGapBytes);

// Byte-exact comparison of two scenarios (padding included); what the patches are computed from.
bool same_bytes(const model::Scenario& a, const model::Scenario& b) noexcept;

}  // namespace shardmeter::search
