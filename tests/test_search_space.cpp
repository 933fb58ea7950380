// search/patch, search/space, search/cursor: axis values as byte patches, the mixed-radix index, and walking it.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <stdexcept>

#include "search/cursor.hpp"
#include "search_test_support.hpp"

using namespace shardmeter;
using namespace shardmeter::test;

TEST_CASE("make_patch turns the base into the modified scenario, touching only changed bytes") {
  const model::Scenario base = gpt13b_base();
  model::Scenario mod = base;
  mod.plan.tp = 4;
  mod.training.micro_batch = 2;
  const search::Patch p = search::make_patch(base, mod);
  REQUIRE(p.ranges.size() == 2);  // far apart: not merged
  CHECK(p.size_bytes() <= 8);
  model::Scenario applied = base;
  p.apply(applied);
  CHECK(search::same_bytes(applied, mod));
  CHECK(search::make_patch(base, base).empty());
}

TEST_CASE("make_patch merges ranges separated by a few equal bytes") {
  const model::Scenario base = gpt13b_base();
  model::Scenario mod = base;
  mod.plan.tp = 2;   // plan.tp, plan.pp, plan.cp are adjacent ints
  mod.plan.cp = 2;
  const search::Patch p = search::make_patch(base, mod);
  CHECK(p.ranges.size() == 1);
  model::Scenario applied = base;
  p.apply(applied);
  CHECK(search::same_bytes(applied, mod));
  CHECK(search::make_patch(base, mod, 0).ranges.size() == 2);
}

TEST_CASE("a space decodes every index to the base with one patch per axis, in any order") {
  const model::Scenario b = gpt13b_base();
  std::vector<search::Axis> axes{recompute_axis(b), gpus_axis(b, {32, 64}), tp_axis(b, {1, 2, 4, 8}), gpu_axis(b)};
  const std::vector<search::Axis> copy = axes;
  const search::Space space(b, std::move(axes));
  REQUIRE(space.size() == 3 * 2 * 4 * 2);
  std::set<std::vector<std::uint32_t>> seen;
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    const std::vector<std::uint32_t> v = space.values(i);
    CHECK(space.index_of(v) == i);
    seen.insert(v);
    // Reference: patches applied in reverse axis order.
    model::Scenario expected = b;
    for (int a = static_cast<int>(copy.size()) - 1; a >= 0; --a) copy[static_cast<std::size_t>(a)].patches[v[static_cast<std::size_t>(a)]].apply(expected);
    CHECK(search::same_bytes(space.scenario(i), expected));
    const auto labels = space.labels(i);
    for (std::size_t a = 0; a < copy.size(); ++a) CHECK(labels[a] == copy[a].labels[v[a]]);
  }
  CHECK(seen.size() == space.size());
}

TEST_CASE("axes are ordered by how many consistency rules read them; unread axes keep their order last") {
  const model::Scenario b = gpt13b_base();
  const search::Space space(b, {recompute_axis(b), gpu_axis(b), micro_batch_axis(b, {1, 2}), gpus_axis(b, {32, 64}),
                                pp_axis(b, {1, 2}), tp_axis(b, {1, 2})});
  const std::vector<int> order(space.order().begin(), space.order().end());
  // tp (every rule) > pp > gpus (island rules) > micro_batch (batch rule) > gpu (the last rule, fp8_not_supported,
  // reads its fp8 peak) > recompute (none)
  CHECK(order == std::vector<int>{5, 4, 3, 2, 1, 0});
}

TEST_CASE("a space rejects overlapping axes, empty axes and more than 2^64 candidates") {
  const model::Scenario b = gpt13b_base();
  CHECK_THROWS_AS(search::Space(b, {tp_axis(b, {1, 2}), tp_axis(b, {4, 8})}), std::invalid_argument);
  search::Axis empty;
  empty.name = "plan.tp";
  CHECK_THROWS_AS(search::Space(b, {empty}), std::invalid_argument);
  std::vector<int> many(256);  // 8 axes of 256 values: exactly 2^64 candidates
  for (int i = 0; i < 256; ++i) many[static_cast<std::size_t>(i)] = i + 1;
  std::vector<search::Axis> axes{tp_axis(b, many), pp_axis(b, many), cp_axis(b, many), interleave_axis(b, many),
                                 micro_batch_axis(b, many), global_batch_axis(b, many), gpus_axis(b, many),
                                 int_axis(b, "plan.shard_group", many, [](model::Scenario& sc, const int& x) { sc.plan.shard_group = x; })};
  CHECK_THROWS_AS(search::Space(b, axes), std::overflow_error);
  axes.pop_back();
  CHECK(search::Space(b, axes).size() == 1ULL << 56);
}

TEST_CASE("overlapping axes throw a SpaceError naming the later axis and the earlier one") {
  const model::Scenario b = gpt13b_base();
  try {
    const search::Space space(b, {recompute_axis(b), tp_axis(b, {1, 2}), tp_axis(b, {4, 8})});
    FAIL("no SpaceError");
  } catch (const search::SpaceError& e) {
    CHECK(e.axis() == 2);
    CHECK(e.other_axis() == 1);
    CHECK_THAT(e.what(), Catch::StartsWith("search axes 'plan.tp' and 'plan.tp' both change scenario byte "));
  }
}

// The footprint that must be disjoint is what values change, not a patch's ranges: make_patch merges ranges across
// short runs of unchanged bytes, which may belong to another axis. Space never writes those (it compiles its own
// ranges), so such axes are independent.
TEST_CASE("axes clash on the bytes their values change, not on their patches' merged gaps") {
  const model::Scenario b = gpt13b_base();
  // plan.tp, plan.pp and plan.cp are adjacent ints: a patch changing tp and cp spans pp's bytes too.
  const search::Axis tp_cp = make_axis<int>(
      b, "tp_cp", {1, 2}, [](model::Scenario& s, const int& v) { s.plan.tp = v; s.plan.cp = v; },
      [](const int& v) { return std::to_string(v); });
  REQUIRE(tp_cp.patches[1].ranges.size() == 1);
  const search::Space space(b, {tp_cp, pp_axis(b, {1, 4})});
  const std::vector<std::uint32_t> values{1, 1};
  const model::Scenario s = space.scenario(space.index_of(values));
  CHECK(s.plan.tp == 2);
  CHECK(s.plan.cp == 2);
  CHECK(s.plan.pp == 4);
}

TEST_CASE("no axes: a space of one candidate, the base") {
  const model::Scenario b = gpt13b_base();
  const search::Space space(b, {});
  CHECK(space.size() == 1);
  CHECK(search::same_bytes(space.scenario(0), b));
}

TEST_CASE("a cursor walks, seeks and skips blocks consistently with Space::scenario") {
  const search::Space space = small_space();
  search::Cursor c(space);
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    REQUIRE(c.index() == i);
    REQUIRE(search::same_bytes(c.scenario(), space.scenario(i)));
    c.next();
  }
  CHECK(c.index() == 0);
  for (int p = -1; p < space.axis_count(); ++p) {
    for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{7}, std::uint64_t{1234}, space.size() - 1}) {
      c.seek(i);
      c.skip_block(p);
      const std::uint64_t block = p < 0 ? space.size() : space.block_size(p);
      const std::uint64_t expected = (i / block + 1) * block % space.size();
      CHECK(c.index() == expected);
      CHECK(search::same_bytes(c.scenario(), space.scenario(expected)));
    }
  }
  c.seek(100);
  c.set_digit(0, (c.digit(0) + 1) % space.radix(0));
  CHECK(search::same_bytes(c.scenario(), space.scenario(c.index())));
}

TEST_CASE("a cursor's labels are Space::labels of its index, axis by axis in the space's axis order") {
  const search::Space space = small_space();
  search::Cursor c(space);
  std::vector<std::string_view> labels(static_cast<std::size_t>(space.axis_count()));
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    c.labels(labels);
    const std::vector<std::string> expected = space.labels(i);
    REQUIRE(labels.size() == expected.size());
    for (std::size_t a = 0; a < expected.size(); ++a) REQUIRE(labels[a] == expected[a]);
    c.next();
  }
}
