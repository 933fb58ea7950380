// HyperLogLog (search/hyperloglog.hpp) and the sketched tally annealing counts with past its exact-count limit
// (search/distinct_tally.hpp): within a few standard errors of the true count, and a function of the set of
// indices alone (order of adds and merges, repeats).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "search/distinct_tally.hpp"
#include "search/hyperloglog.hpp"

using namespace shardmeter;

TEST_CASE("HyperLogLog estimates distinct counts within 3 % and ignores repeats", "[search][hyperloglog]") {
  search::HyperLogLog empty;
  CHECK(empty.estimate() == 0);
  // Standard error 1.04 / sqrt(16384) = 0.81 %: 3 % is more than 3.5 standard errors. Small counts come from
  // linear counting, nearly exact (100 indices in 16,384 registers: collisions change the estimate by < 1).
  for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{100}, std::uint64_t{5'000}, std::uint64_t{60'000},
                                std::uint64_t{1'000'000}, std::uint64_t{3'000'000}}) {
    INFO(n);
    search::HyperLogLog h;
    for (std::uint64_t i = 0; i < n; ++i) h.add(7 * i + 3);
    for (std::uint64_t i = 0; i < n; i += 3) h.add(7 * i + 3);   // repeats add nothing
    const double e = static_cast<double>(h.estimate());
    if (n <= 100) CHECK(std::fabs(e - static_cast<double>(n)) <= 1.0);
    CHECK(std::fabs(e / static_cast<double>(n) - 1) < 0.03);
  }
}

TEST_CASE("HyperLogLog merges are order-independent: the estimate of a union, whatever the split", "[search][hyperloglog]") {
  search::HyperLogLog whole, a, b, c;
  for (std::uint64_t i = 0; i < 200'000; ++i) {
    whole.add(i * i);
    (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(i * i);
  }
  search::HyperLogLog abc = a, cba = c;
  abc.merge(b);
  abc.merge(c);
  cba.merge(b);
  cba.merge(a);
  CHECK(abc.estimate() == whole.estimate());
  CHECK(cba.estimate() == whole.estimate());
  search::HyperLogLog none;
  none.merge(a);
  CHECK(none.estimate() == a.estimate());
}

TEST_CASE("a sketched tally counts each outcome's distinct candidates; visited is their sum", "[search][hyperloglog]") {
  search::DistinctTally t(3);
  search::Outcome feasible;
  feasible.estimated = true;
  search::Outcome oom;
  oom.code = 1;
  oom.memory_bound = true;
  for (int round = 0; round < 2; ++round)   // every candidate twice: counted once
    for (std::uint64_t i = 0; i < 30'000; ++i) t.add(i, i % 3 == 0 ? feasible : oom);
  const search::Tally e = t.tally();
  CHECK(e.visited == e.feasible + e.rejected[0] + e.rejected[1] + e.rejected[2]);
  CHECK(e.rejected[0] == 0);
  CHECK(e.rejected[2] == 0);
  CHECK(std::fabs(static_cast<double>(e.feasible) / 10'000 - 1) < 0.03);
  CHECK(std::fabs(static_cast<double>(e.rejected[1]) / 20'000 - 1) < 0.03);
  CHECK(e.estimated == e.feasible);        // the same candidates, the same sketch contents
  CHECK(e.memory_bound == e.rejected[1]);
  CHECK(std::fabs(static_cast<double>(e.visited) / 30'000 - 1) < 0.03);
}
