#pragma once
// Where scenario fields live inside the trivially-copyable Scenario, as byte ranges. The search varies scenarios
// by byte patches and uses these ranges to decide, without knowing any field, when a whole block of candidates
// shares a consistency outcome (search/README.md, "Pruning").
#include <array>
#include <cstddef>

#include "model/field_id.hpp"
#include "model/reject_reason.hpp"

namespace shardmeter::model {

struct ByteRange {
  std::size_t offset = 0;
  std::size_t size = 0;
};

// A short fixed-capacity list of byte ranges (no allocation).
struct ByteRanges {
  static constexpr int kCapacity = 64;
  std::array<ByteRange, kCapacity> items{};
  int count = 0;

  void add(ByteRange r) noexcept {
    if (r.size > 0 && count < kCapacity) items[static_cast<std::size_t>(count++)] = r;
  }
  const ByteRange* begin() const noexcept { return items.data(); }
  const ByteRange* end() const noexcept { return items.data() + count; }
};

// Bytes of one field. Island fields (island_gpus, island_gpus_per_node, island_count) need `island` in
// [0, kMaxIslands); cluster_islands is the island_entries counter (the total also reads every island_count).
// FieldId::none and out-of-range islands give an empty range.
ByteRange field_bytes(FieldId field, int island) noexcept;

// Every byte check_consistency may read before it can return `reason` (a superset: all earlier rules included).
// If none of these bytes differ between two scenarios, both get the same first violation. `unbounded` is set
// for reasons not decided by check_consistency alone (out_of_memory, none): those can never be pruned.
struct ConsistencyInputs {
  ByteRanges ranges;
  bool unbounded = false;
};
ConsistencyInputs consistency_inputs(RejectReason reason) noexcept;

}  // namespace shardmeter::model
