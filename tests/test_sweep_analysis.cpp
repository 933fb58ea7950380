// The sweep's analyses as pure functions of hand-made series (src/sweep/sweep_analysis.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <vector>

#include "src/sweep/sweep_analysis.hpp"

using namespace shardmeter::cli;

namespace {
using X = std::vector<std::optional<double>>;
}

TEST_CASE("knee: the point past which every step returns less than F of the first step's tokens/s per $/h") {
  // Cost doubles; throughput 10, 20, 35, 45, 48: marginal 10/1, 15/2, 10/4, 3/8 tokens/s per $/h.
  const std::vector<double> cost = {1, 2, 4, 8, 16}, tput = {10, 20, 35, 45, 48};
  const Knee k = find_knee(cost, tput, 0.5);
  REQUIRE(k.status == KneeStatus::found);
  CHECK(k.point == 2);  // step 2->4 returns 75 %, step 4->8 25 %: the knee is at cost 4
  CHECK(std::isnan(k.marginal[0]));
  CHECK(k.marginal[1] == Approx(10));
  CHECK(k.marginal[2] == Approx(7.5));
  CHECK(k.marginal[3] == Approx(2.5));
  CHECK(k.marginal[4] == Approx(0.375));
  CHECK(k.ratio[1] == Approx(1.0));
  CHECK(k.ratio[2] == Approx(0.75));
  CHECK(k.ratio[3] == Approx(0.25));
  CHECK(k.ratio[4] == Approx(0.0375));
  // A stricter fraction moves the knee out; a looser one moves it in.
  CHECK(find_knee(cost, tput, 0.8).point == 1);
  CHECK(find_knee(cost, tput, 0.2).point == 3);
}

TEST_CASE("knee edge cases: linear, superlinear, flat, too short, flat cost, a dip that recovers") {
  const std::vector<double> cost = {1, 2, 4, 8};
  SECTION("linear scaling never reaches the knee") {
    CHECK(find_knee(cost, std::vector<double>{10, 20, 40, 80}, 0.5).status == KneeStatus::not_reached);
  }
  SECTION("superlinear scaling never reaches the knee") {
    CHECK(find_knee(cost, std::vector<double>{10, 25, 70, 200}, 0.5).status == KneeStatus::not_reached);
  }
  SECTION("flat throughput: the smallest size is the knee") {
    const Knee k = find_knee(cost, std::vector<double>{10, 10, 10, 10}, 0.5);
    CHECK(k.status == KneeStatus::at_start);
    CHECK(k.point == 0);
  }
  SECTION("falling throughput is the knee at the start too") {
    CHECK(find_knee(cost, std::vector<double>{10, 9, 8, 7}, 0.5).status == KneeStatus::at_start);
  }
  SECTION("fewer than three points") {
    CHECK(find_knee(std::vector<double>{1, 2}, std::vector<double>{10, 20}, 0.5).status == KneeStatus::too_few_points);
    CHECK(find_knee(std::vector<double>{1}, std::vector<double>{10}, 0.5).status == KneeStatus::too_few_points);
    CHECK(find_knee(std::vector<double>{}, std::vector<double>{}, 0.5).status == KneeStatus::too_few_points);
  }
  SECTION("a first step that does not raise the cost leaves 'per dollar' undefined") {
    CHECK(find_knee(std::vector<double>{1, 1, 2}, std::vector<double>{10, 20, 30}, 0.5).status == KneeStatus::cost_flat);
  }
  SECTION("a dip below F that recovers is not the knee: only the tail counts") {
    // marginal 10, 2, 9, 1 (ratios 1, .2, .9, .1): the tail of bad steps is the last one alone.
    const Knee k = find_knee(std::vector<double>{0, 1, 2, 3, 4}, std::vector<double>{0, 10, 12, 21, 22}, 0.5);
    REQUIRE(k.status == KneeStatus::found);
    CHECK(k.point == 3);
  }
  SECTION("exactly F still pays") {
    // ratios 1, 0.5, 0.25: the step at exactly 0.5 is not below it.
    const Knee k = find_knee(cost, std::vector<double>{10, 20, 30, 40}, 0.5);
    REQUIRE(k.status == KneeStatus::found);
    CHECK(k.point == 2);
  }
}

TEST_CASE("transition: where the exposed-communication share crosses 50 %") {
  SECTION("rising, interpolated linearly in the axis value") {
    const Transition t = find_transition(X{1.0, 2.0, 4.0}, std::vector<double>{0.2, 0.4, 0.8});
    REQUIRE(t.status == CrossingStatus::crosses);
    REQUIRE(t.crossings.size() == 1);
    CHECK(t.crossings[0].after == 1);
    CHECK(t.crossings[0].rising);
    CHECK(t.crossings[0].t == Approx(0.25));
    REQUIRE(t.crossings[0].x);
    CHECK(*t.crossings[0].x == Approx(2.5));
  }
  SECTION("falling (more bandwidth hides the communication)") {
    const Transition t = find_transition(X{100.0, 200.0, 400.0}, std::vector<double>{0.9, 0.6, 0.3});
    REQUIRE(t.crossings.size() == 1);
    CHECK_FALSE(t.crossings[0].rising);
    CHECK(*t.crossings[0].x == Approx(200 + 200 * (0.1 / 0.3)));
  }
  SECTION("never, always, no points") {
    CHECK(find_transition(X{1.0, 2.0}, std::vector<double>{0.1, 0.49}).status == CrossingStatus::never);
    CHECK(find_transition(X{1.0, 2.0}, std::vector<double>{0.5, 0.9}).status == CrossingStatus::always);
    CHECK(find_transition(X{}, std::vector<double>{}).status == CrossingStatus::no_points);
    CHECK(find_transition(X{1.0}, std::vector<double>{0.7}).status == CrossingStatus::always);
  }
  SECTION("flat at the level counts as at or above") {
    CHECK(find_transition(X{1.0, 2.0, 3.0}, std::vector<double>{0.5, 0.5, 0.5}).status == CrossingStatus::always);
  }
  SECTION("labels that are not numbers: the crossing is reported between them") {
    const Transition t = find_transition(X{std::nullopt, std::nullopt}, std::vector<double>{0.3, 0.7});
    REQUIRE(t.crossings.size() == 1);
    CHECK_FALSE(t.crossings[0].x);
    CHECK(t.crossings[0].t == Approx(0.5));
  }
  SECTION("non-monotone: every crossing, in axis order") {
    const Transition t = find_transition(X{1.0, 2.0, 3.0, 4.0}, std::vector<double>{0.2, 0.8, 0.4, 0.6});
    REQUIRE(t.crossings.size() == 3);
    CHECK(t.crossings[0].rising);
    CHECK_FALSE(t.crossings[1].rising);
    CHECK(t.crossings[2].rising);
    CHECK(*t.crossings[1].x == Approx(2.75));
  }
}

TEST_CASE("axis labels as numbers") {
  CHECK(label_number("64") == 64.0);
  CHECK(label_number("0.35") == 0.35);
  CHECK(label_number("1e3") == 1000.0);
  CHECK_FALSE(label_number("h100-sxm"));
  CHECK_FALSE(label_number("8x"));
  CHECK_FALSE(label_number(""));
  CHECK_FALSE(label_number("{gpu: h100-sxm, gpus: 64}"));
}
