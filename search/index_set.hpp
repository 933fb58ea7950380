#pragma once
// Open-addressing hash set and map keyed by candidate index, for annealing's per-chain cache and the counts of
// distinct candidates (search/anneal.cpp, search/local_search.cpp). Linear probing over a power-of-two table that
// the caller sizes up front from the visit budget, so a lookup is a multiply, a shift and usually one probe, and
// nothing allocates while a chain runs (std::unordered_map allocated one node per insert; with its lookups that
// was half of annealing's time per estimate). The table doubles when it passes half full, so a wrong size costs
// speed, never correctness. Neither type has an iteration order: callers only look up and insert, which keeps
// annealing's results independent of the hash function.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace shardmeter::search {

namespace detail {

// No candidate index equals it: a space has fewer than 2^64 - 1 candidates (Space's size is a uint64_t count).
inline constexpr std::uint64_t kNoIndex = std::numeric_limits<std::uint64_t>::max();

// SplitMix64's finaliser (Steele et al. 2014): neighbouring indices land far apart.
inline std::uint64_t mix_index(std::uint64_t x) noexcept {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Slots for at least 2 * expected keys (at most half full), a power of two, at least 16.
inline std::size_t table_size(std::size_t expected) noexcept {
  std::size_t n = 16;
  while (n < 2 * expected && n < (std::size_t{1} << 62)) n *= 2;
  return n;
}

// The slot of a linear-probing table of `keys` (mask = size - 1) holding `index`, or the empty slot where it would go.
inline std::size_t probe_slot(const std::vector<std::uint64_t>& keys, std::size_t mask, std::uint64_t index) noexcept {
  std::size_t slot = static_cast<std::size_t>(mix_index(index)) & mask;
  while (keys[slot] != index && keys[slot] != kNoIndex) slot = (slot + 1) & mask;
  return slot;
}

}  // namespace detail

// A map from candidate index to V (V default-constructible and copyable).
template <class V>
class IndexMap {
public:
  IndexMap() : IndexMap(0) {}
  explicit IndexMap(std::size_t expected) { rebuild(detail::table_size(expected)); }

  std::size_t size() const noexcept { return size_; }

  // The value stored for `index`, or nullptr.
  const V* find(std::uint64_t index) const noexcept {
    const std::size_t slot = probe(index);
    return keys_[slot] == index ? &values_[slot] : nullptr;
  }
  // Stores `value` for `index` unless it has one already. True if it was inserted.
  bool insert(std::uint64_t index, const V& value) {
    std::size_t slot = probe(index);
    if (keys_[slot] == index) return false;
    if (2 * (size_ + 1) > keys_.size()) {
      grow();
      slot = probe(index);
    }
    keys_[slot] = index;
    values_[slot] = value;
    ++size_;
    return true;
  }
  // Forgets every entry, keeping the table (a bounded cache starts over without allocating).
  void clear() noexcept {
    std::fill(keys_.begin(), keys_.end(), detail::kNoIndex);
    size_ = 0;
  }
  // The value for `index`, inserted as V{} if there was none (std::unordered_map::operator[]).
  V& operator[](std::uint64_t index) {
    std::size_t slot = probe(index);
    if (keys_[slot] != index) {
      insert(index, V{});
      slot = probe(index);
    }
    return values_[slot];
  }

private:
  std::size_t probe(std::uint64_t index) const noexcept { return detail::probe_slot(keys_, mask_, index); }
  void rebuild(std::size_t slots) {
    keys_.assign(slots, detail::kNoIndex);
    values_.assign(slots, V{});
    mask_ = slots - 1;
    size_ = 0;
  }
  void grow() {
    std::vector<std::uint64_t> keys = std::move(keys_);
    std::vector<V> values = std::move(values_);
    rebuild(keys.size() * 2);
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != detail::kNoIndex) {
        const std::size_t slot = probe(keys[i]);
        keys_[slot] = keys[i];
        values_[slot] = std::move(values[i]);
        ++size_;
      }
  }

  std::vector<std::uint64_t> keys_;
  std::vector<V> values_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

// A set of candidate indices.
class IndexSet {
public:
  IndexSet() : IndexSet(0) {}
  explicit IndexSet(std::size_t expected) { rebuild(detail::table_size(expected)); }

  std::size_t size() const noexcept { return size_; }
  bool contains(std::uint64_t index) const noexcept { return keys_[probe(index)] == index; }
  // Adds `index`; true if it was not there (std::unordered_set::insert(...).second).
  bool insert(std::uint64_t index) {
    std::size_t slot = probe(index);
    if (keys_[slot] == index) return false;
    if (2 * (size_ + 1) > keys_.size()) {
      grow();
      slot = probe(index);
    }
    keys_[slot] = index;
    ++size_;
    return true;
  }
  // Asks the CPU to fetch the slot where `index` would start probing: a loop inserting many indices (the merge of
  // annealing's chains) prefetches a few ahead and waits for one cache miss at a time instead of every one.
  void prefetch(std::uint64_t index) const noexcept {
    __builtin_prefetch(keys_.data() + (static_cast<std::size_t>(detail::mix_index(index)) & mask_));
  }
  // Makes room for `expected` indices in all without growing again.
  void reserve(std::size_t expected) {
    if (2 * expected > keys_.size()) rehash(detail::table_size(expected));
  }

private:
  std::size_t probe(std::uint64_t index) const noexcept { return detail::probe_slot(keys_, mask_, index); }
  void rebuild(std::size_t slots) {
    keys_.assign(slots, detail::kNoIndex);
    mask_ = slots - 1;
    size_ = 0;
  }
  void rehash(std::size_t slots) {
    std::vector<std::uint64_t> keys = std::move(keys_);
    rebuild(slots);
    for (const std::uint64_t k : keys)
      if (k != detail::kNoIndex) {
        keys_[probe(k)] = k;
        ++size_;
      }
  }
  void grow() { rehash(keys_.size() * 2); }

  std::vector<std::uint64_t> keys_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace shardmeter::search
