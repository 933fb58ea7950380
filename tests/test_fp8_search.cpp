// fp8 as a search axis (docs/model.md §2.2): fp8 on a GPU without fp8 tensor cores is a counted, pruned rejection
// with its own reason, never a silent 16-bit run, and pruning it changes neither the front nor any count.
#include <catch2/catch.hpp>

#include "search/search.hpp"
#include "search_test_support.hpp"

using namespace shardmeter;
using namespace shardmeter::test;

namespace {

search::SearchOptions exhaustive() {
  search::SearchOptions o;
  o.method = search::Method::exhaustive;
  return o;
}

s::Axis precision_axis(const m::Scenario& b) {
  return make_axis<m::Precision>(
      b, "training.precision", {m::Precision::bf16, m::Precision::fp8},
      [](m::Scenario& sc, const m::Precision& p) { sc.training.precision = p; },
      [](const m::Precision& p) { return p == m::Precision::fp8 ? std::string("fp8") : std::string("bf16"); });
}

}  // namespace

TEST_CASE("precision as an axis: fp8 on the A100 is rejected by fp8_not_supported, in pruned blocks") {
  const m::Scenario b = gpt13b_base();
  // GPU (A100, H100) x precision (bf16, fp8) x tp (1, 2, 4, 8) = 16 candidates; the 4 of A100 + fp8 are rejected.
  const s::Space space(b, {gpu_axis(b), precision_axis(b), tp_axis(b, {1, 2, 4, 8})});
  const search::SearchResult pruned = search::search(space, search::Goal{}, exhaustive());
  std::uint64_t rejected = 0;
  for (std::uint64_t i = 0; i < space.size(); ++i)
    rejected += m::check_consistency(space.scenario(i)).reason == m::RejectReason::fp8_not_supported ? 1 : 0;
  CHECK(rejected == 4);
  std::uint64_t counted = 0;
  for (const auto& [n, c] : pruned.counts.rejections())
    if (n == "fp8_not_supported") counted = c;
  CHECK(counted == 4);
  // The significance order puts tp first and the GPU and precision axes (read by the last rule only) after it,
  // so the 4 are decided candidate by candidate or as blocks; either way each is counted once.
  CHECK(pruned.counts.visited == space.size());
  // Nothing on the front runs fp8 on the A100; the H100's fp8 plans are the fastest.
  bool fp8_on_front = false;
  for (const search::FrontPoint& p : pruned.front) {
    CHECK_FALSE((p.scenario.training.precision == m::Precision::fp8 && p.scenario.cluster.islands[0].gpu.peak_fp8_flops_per_s == 0));
    fp8_on_front = fp8_on_front || p.scenario.training.precision == m::Precision::fp8;
  }
  CHECK(fp8_on_front);
}
