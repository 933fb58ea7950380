#pragma once
// The search space: a base scenario and an ordered list of axes, each a list of labelled byte patches.
// A candidate is one value per axis; its index is a mixed-radix number (timeloop's mapspace encoding) whose
// digits follow the *significance order* chosen for pruning (search/README.md, "Axis order").
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/spec/field_id.hpp"
#include "model/spec/scenario.hpp"
#include "search/patch.hpp"

namespace shardmeter::search {

struct Axis {
  std::string name;                  // the dotted key, e.g. "plan.tp"
  std::vector<std::string> labels;   // one per value, e.g. "4"
  std::vector<Patch> patches;        // one per value, relative to the space's base scenario
};

// An axis the space cannot use: no values, labels and values of different lengths, a patch outside the scenario,
// or (with `other_axis` set) bytes that the earlier axis `other_axis` changes too.
class SpaceError : public std::invalid_argument {
public:
  SpaceError(const std::string& what, int axis, int other_axis = -1)
      : std::invalid_argument(what), axis_(axis), other_axis_(other_axis) {}
  int axis() const noexcept { return axis_; }
  int other_axis() const noexcept { return other_axis_; }

private:
  int axis_;
  int other_axis_;
};

class Space {
public:
  // Throws SpaceError for an axis it cannot use. Axes must change disjoint bytes: their *footprints* (the bytes
  // some value of the axis changes) may not overlap, and this is the one place that checks it. Throws
  // std::overflow_error when the space has 2^64 candidates or more.
  Space(const model::Scenario& base, std::vector<Axis> axes);

  std::uint64_t size() const noexcept { return size_; }
  const model::Scenario& base() const noexcept { return base_; }
  int axis_count() const noexcept { return static_cast<int>(axes_.size()); }
  const Axis& axis(int a) const { return axes_[static_cast<std::size_t>(a)]; }

  // Significance order: position 0 is the most significant digit of an index. order()[position] = axis index.
  std::span<const int> order() const noexcept { return order_; }
  std::uint32_t radix(int position) const noexcept { return compiled_[static_cast<std::size_t>(position)].radix; }
  // Candidates sharing the digits of positions 0..position: the product of the radices after `position`.
  std::uint64_t block_size(int position) const noexcept { return stride_[static_cast<std::size_t>(position)]; }

  // Value index per axis (in axis order, not significance order) of a candidate, and back.
  std::vector<std::uint32_t> values(std::uint64_t index) const;
  std::uint64_t index_of(std::span<const std::uint32_t> values_per_axis) const;
  model::Scenario scenario(std::uint64_t index) const;
  std::vector<std::string> labels(std::uint64_t index) const;

  // Writes the value `value` of the axis at significance `position` into `scenario` (a few memcpy calls).
  void apply(model::Scenario& scenario, int position, std::uint32_t value) const noexcept;

  // The least significant position whose axis changes any of `bytes`; -1 when no axis does. A candidate's
  // outcome that depends only on `bytes` is shared by the whole block of candidates with its digits up to it.
  int last_position_touching(const model::ByteRanges& bytes) const noexcept;
  // True when some value of the axis at `position` changes any of `bytes`.
  bool touches(int position, const model::ByteRanges& bytes) const noexcept;

private:
  struct CompiledAxis {
    int axis = 0;                      // index into axes_
    std::uint32_t radix = 0;
    std::vector<PatchRange> ranges;    // the axis' footprint, identical for all its values
    std::uint32_t value_bytes = 0;     // sum of range sizes
    std::vector<std::byte> contents;   // radix * value_bytes: value v's bytes at v * value_bytes
  };

  model::Scenario base_;
  std::vector<Axis> axes_;
  std::vector<CompiledAxis> compiled_;   // by position
  std::vector<int> order_;               // position -> axis
  std::vector<int> position_of_;         // axis -> position
  std::vector<std::uint64_t> stride_;    // by position
  std::vector<std::vector<PatchRange>> exact_;  // by axis: the bytes some value changes (no merged gaps)
  std::uint64_t size_ = 1;
};

}  // namespace shardmeter::search
