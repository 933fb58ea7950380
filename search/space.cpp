#include "search/space.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "model/parallel/consistency.hpp"

namespace shardmeter::search {

namespace {

constexpr std::size_t kScenarioBytes = sizeof(model::Scenario);

const std::byte* bytes_of(const model::Scenario& s) { return reinterpret_cast<const std::byte*>(&s); }

// Maximal runs of `true` in a byte mask.
std::vector<PatchRange> runs(const std::vector<bool>& mask) {
  std::vector<PatchRange> out;
  std::size_t i = 0;
  while (i < mask.size()) {
    if (!mask[i]) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < mask.size() && mask[i]) ++i;
    out.push_back(PatchRange{static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(i - start)});
  }
  return out;
}

bool intersects(const std::vector<PatchRange>& ranges, const model::ByteRanges& bytes) {
  for (const PatchRange& r : ranges)
    for (const model::ByteRange& b : bytes)
      if (r.offset < b.offset + b.size && b.offset < std::size_t{r.offset} + r.size) return true;
  return false;
}

// Exact footprint of every axis (the bytes some value of it changes) and, per scenario byte, the axis that owns it
// (-1: none). Footprints must be disjoint, so that a candidate is the same whatever order its patches are applied in.
struct Footprints {
  std::vector<int> owner;
  std::vector<std::vector<PatchRange>> exact;  // by axis
};

// The bytes `axis` (number `a`) changes, after checking its values and patches.
std::vector<bool> axis_mask(const model::Scenario& base, const Axis& axis, int a) {
  if (axis.patches.empty()) throw SpaceError(fmt::format("search axis '{}' has no values", axis.name), a);
  if (axis.labels.size() != axis.patches.size())
    throw SpaceError(fmt::format("search axis '{}' has {} labels for {} values", axis.name, axis.labels.size(),
                                 axis.patches.size()),
                     a);
  if (axis.patches.size() > UINT32_MAX)
    throw SpaceError(fmt::format("search axis '{}' has too many values", axis.name), a);
  std::vector<bool> mask(kScenarioBytes, false);
  for (const Patch& patch : axis.patches) {
    for (const PatchRange& r : patch.ranges)
      if (std::size_t{r.offset} + r.size > kScenarioBytes)
        throw SpaceError(fmt::format("search axis '{}' has a patch outside the scenario", axis.name), a);
    model::Scenario s = base;
    patch.apply(s);
    const std::byte* p = bytes_of(s);
    const std::byte* q = bytes_of(base);
    for (std::size_t i = 0; i < kScenarioBytes; ++i)
      if (p[i] != q[i]) mask[i] = true;
  }
  return mask;
}

Footprints footprints(const model::Scenario& base, const std::vector<Axis>& axes) {
  const int n = static_cast<int>(axes.size());
  Footprints f{std::vector<int>(kScenarioBytes, -1), std::vector<std::vector<PatchRange>>(static_cast<std::size_t>(n))};
  for (int a = 0; a < n; ++a) {
    const Axis& axis = axes[static_cast<std::size_t>(a)];
    const std::vector<bool> mask = axis_mask(base, axis, a);
    for (std::size_t i = 0; i < kScenarioBytes; ++i) {
      if (!mask[i]) continue;
      if (f.owner[i] >= 0)
        throw SpaceError(fmt::format("search axes '{}' and '{}' both change scenario byte {}: axes must set "
                                     "independent fields",
                                     axes[static_cast<std::size_t>(f.owner[i])].name, axis.name, i),
                         a, f.owner[i]);
      f.owner[i] = a;
    }
    f.exact[static_cast<std::size_t>(a)] = runs(mask);
  }
  return f;
}

// Significance order: axes that more consistency rules read go first (most significant), so that a rule failing on
// a prefix rejects the largest possible block. Ties keep the caller's order.
std::vector<int> significance_order(const std::vector<std::vector<PatchRange>>& exact) {
  const int n = static_cast<int>(exact.size());
  std::vector<int> rules_read(static_cast<std::size_t>(n), 0);
  for (int r = 0; r < model::kRejectReasonCount; ++r) {
    const model::ConsistencyInputs in = model::consistency_inputs(static_cast<model::RejectReason>(r));
    if (in.unbounded) continue;
    const model::ByteRanges bytes = model::field_bytes(in.fields);
    for (int a = 0; a < n; ++a)
      if (intersects(exact[static_cast<std::size_t>(a)], bytes)) ++rules_read[static_cast<std::size_t>(a)];
  }
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a) order[static_cast<std::size_t>(a)] = a;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return rules_read[static_cast<std::size_t>(x)] > rules_read[static_cast<std::size_t>(y)];
  });
  return order;
}

// An axis's footprint as one range list, merged across short gaps no other axis owns.
std::vector<PatchRange> merged_ranges(const std::vector<PatchRange>& exact, const std::vector<int>& owner) {
  std::vector<PatchRange> out;
  for (const PatchRange& r : exact) {
    if (!out.empty()) {
      PatchRange& last = out.back();
      const std::uint32_t last_end = last.offset + last.size;
      const bool near = r.offset - last_end <= kPatchMergeGapBytes;
      if (near && std::all_of(owner.begin() + last_end, owner.begin() + r.offset, [](int o) { return o < 0; })) {
        last.size = r.offset + r.size - last.offset;
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace

Space::Space(const model::Scenario& base, std::vector<Axis> axes) : base_(base), axes_(std::move(axes)) {
  const int n = axis_count();
  Footprints f = footprints(base_, axes_);
  order_ = significance_order(f.exact);
  position_of_.resize(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p) position_of_[static_cast<std::size_t>(order_[static_cast<std::size_t>(p)])] = p;

  // Compile each axis: one range list for all values, and every value's bytes for those ranges in one flat array.
  compiled_.resize(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p) {
    const int a = order_[static_cast<std::size_t>(p)];
    const Axis& axis = axes_[static_cast<std::size_t>(a)];
    CompiledAxis& c = compiled_[static_cast<std::size_t>(p)];
    c.axis = a;
    c.radix = static_cast<std::uint32_t>(axis.patches.size());
    c.ranges = merged_ranges(f.exact[static_cast<std::size_t>(a)], f.owner);
    for (const PatchRange& r : c.ranges) c.value_bytes += r.size;
    c.contents.resize(std::size_t{c.radix} * c.value_bytes);
    for (std::uint32_t v = 0; v < c.radix; ++v) {
      model::Scenario s = base_;
      axis.patches[v].apply(s);
      std::byte* out = c.contents.data() + std::size_t{v} * c.value_bytes;
      for (const PatchRange& r : c.ranges) {
        std::memcpy(out, bytes_of(s) + r.offset, r.size);
        out += r.size;
      }
    }
  }

  // Strides and size, least significant first.
  stride_.assign(static_cast<std::size_t>(n), 1);
  std::uint64_t block = 1;
  for (int p = n - 1; p >= 0; --p) {
    stride_[static_cast<std::size_t>(p)] = block;
    if (__builtin_mul_overflow(block, std::uint64_t{compiled_[static_cast<std::size_t>(p)].radix}, &block))
      throw std::overflow_error("the search space has 2^64 candidates or more; remove values or axes");
  }
  size_ = block;
  exact_ = std::move(f.exact);
}

std::vector<std::uint32_t> Space::values(std::uint64_t index) const {
  std::vector<std::uint32_t> out(axes_.size(), 0);
  for (int p = axis_count() - 1; p >= 0; --p) {
    const CompiledAxis& c = compiled_[static_cast<std::size_t>(p)];
    out[static_cast<std::size_t>(c.axis)] = static_cast<std::uint32_t>(index % c.radix);
    index /= c.radix;
  }
  return out;
}

std::uint64_t Space::index_of(std::span<const std::uint32_t> values_per_axis) const {
  if (values_per_axis.size() != axes_.size()) throw std::invalid_argument("one value per axis expected");
  std::uint64_t index = 0;
  for (int p = 0; p < axis_count(); ++p) {
    const CompiledAxis& c = compiled_[static_cast<std::size_t>(p)];
    const std::uint32_t v = values_per_axis[static_cast<std::size_t>(c.axis)];
    if (v >= c.radix) throw std::out_of_range("axis value out of range");
    index += v * stride_[static_cast<std::size_t>(p)];
  }
  return index;
}

model::Scenario Space::scenario(std::uint64_t index) const {
  model::Scenario s = base_;
  for (int p = axis_count() - 1; p >= 0; --p) {
    const std::uint32_t radix = compiled_[static_cast<std::size_t>(p)].radix;
    apply(s, p, static_cast<std::uint32_t>(index % radix));
    index /= radix;
  }
  return s;
}

std::vector<std::string> Space::labels(std::uint64_t index) const {
  const std::vector<std::uint32_t> v = values(index);
  std::vector<std::string> out;
  out.reserve(axes_.size());
  for (std::size_t a = 0; a < axes_.size(); ++a) out.push_back(axes_[a].labels[v[a]]);
  return out;
}

void Space::apply(model::Scenario& scenario, int position, std::uint32_t value) const noexcept {
  const CompiledAxis& c = compiled_[static_cast<std::size_t>(position)];
  auto* out = reinterpret_cast<std::byte*>(&scenario);
  const std::byte* in = c.contents.data() + std::size_t{value} * c.value_bytes;
  for (const PatchRange& r : c.ranges) {
    std::memcpy(out + r.offset, in, r.size);
    in += r.size;
  }
}

bool Space::touches(int position, const model::ByteRanges& bytes) const noexcept {
  return intersects(exact_[static_cast<std::size_t>(compiled_[static_cast<std::size_t>(position)].axis)], bytes);
}

int Space::last_position_touching(const model::ByteRanges& bytes) const noexcept {
  for (int p = axis_count() - 1; p >= 0; --p)
    if (intersects(exact_[static_cast<std::size_t>(compiled_[static_cast<std::size_t>(p)].axis)], bytes)) return p;
  return -1;
}

}  // namespace shardmeter::search
