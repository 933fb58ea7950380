#include <catch2/catch.hpp>

#include "model/comm/fsdp_exposure.hpp"

using namespace shardmeter::model;

namespace {
// U = 4 units, AG = RS = 4 s, forward window 8 s, backward 16 s: per unit a = r = 1, f = 2, b = 4.
FsdpPass four_units() {
  FsdpPass p;
  p.all_gather_s = 4;
  p.reduce_scatter_s = 4;
  p.units = 4;
  p.forward_window_s = 8;
  p.backward_window_s = 16;
  return p;
}
}  // namespace

TEST_CASE("FSDP prefetch: only the first gather and the last reduce-scatter are exposed (docs/model.md §6.3)") {
  // forward = a + 3 E(1, 2) = 1 (1 <= 0.9 * 2 hides); backward = a + 3 E(2, 4) + r = 2 (2 <= 3.6 hides).
  CHECK(fsdp_exposed_s(four_units()) == Approx(3.0));
}

TEST_CASE("FSDP: overlap_param_gather false exposes every all-gather (docs/model.md §6.3)") {
  FsdpPass p = four_units();
  p.gather_overlaps = false;
  // forward = 4 a = 4; backward = 4 a + 3 E(r = 1, 4) + r = 4 + 0 + 1 = 5.
  CHECK(fsdp_exposed_s(p) == Approx(9.0));
  p.reduce_overlaps = false;
  // neither: forward 4, backward 4 (a + r) = 8.
  CHECK(fsdp_exposed_s(p) == Approx(12.0));
}

TEST_CASE("FSDP: overlap_grad_reduce false exposes every reduce-scatter (docs/model.md §6.3)") {
  FsdpPass p = four_units();
  p.reduce_overlaps = false;
  // forward 1; backward = a + 3 E(1, 4) + 4 r = 1 + 0 + 4 = 5.
  CHECK(fsdp_exposed_s(p) == Approx(6.0));
}

TEST_CASE("FSDP: hidden traffic still costs its contention slowdown, and what does not fit stays exposed") {
  FsdpPass p = four_units();
  p.slowdown = 0.1;
  // forward = 1 + 3 (0.1 x 1) = 1.3; backward = 1 + 3 (0.1 x 2) + 1 = 2.6.
  CHECK(fsdp_exposed_s(p) == Approx(3.9));
  p.slowdown = 0;
  p.forward_window_s = 4;  // f = 1: capacity 0.9 per unit, 0.1 of each later gather stays exposed
  // forward = 1 + 3 x 0.1 = 1.3; backward 2.
  CHECK(fsdp_exposed_s(p) == Approx(3.3));
}

TEST_CASE("FSDP: reshard_after_forward false leaves the backward without gathers (docs/model.md §6.3)") {
  FsdpPass p = four_units();
  p.backward_gathers = false;
  // forward = a + 3 E(1, 2) = 1 (unchanged); backward = 3 E(r = 1, 4) + r = 0 + 1 = 1. Total 2 s, against 3 s.
  CHECK(fsdp_exposed_s(p) == Approx(2.0));
  p.reduce_overlaps = false;
  // forward 1; backward = 4 r = 4.
  CHECK(fsdp_exposed_s(p) == Approx(5.0));
  // Never more exposed than with the backward gathers, whatever the overlaps.
  for (bool gather : {true, false})
    for (bool reduce : {true, false}) {
      FsdpPass with = four_units(), without = four_units();
      with.gather_overlaps = without.gather_overlaps = gather;
      with.reduce_overlaps = without.reduce_overlaps = reduce;
      without.backward_gathers = false;
      CHECK(fsdp_exposed_s(without) <= fsdp_exposed_s(with));
    }
}
