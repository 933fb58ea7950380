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

TEST_CASE("knee: the size with the most effective tokens/s per dollar of total cost (the front's knee)") {
  // Total cost 4.69, 4.73, 4.84, 5.21, 5.98, 7.39 ($M) against 178.5k, 209.2k, 263.4k, 335.9k, 430.8k, 546.7k tokens/s
  // (hetero-70b-two-regions over 8..256 H100 nodes): tokens/s per $M 38.1k, 44.2k, 54.4k, 64.5k, 72.0k, 74.0k, so the
  // largest size: every larger island still added at least as much speed as cost.
  const std::vector<double> cost = {4.69e6, 4.73e6, 4.84e6, 5.21e6, 5.98e6, 7.39e6};
  const std::vector<double> speed = {178.5e3, 209.2e3, 263.4e3, 335.9e3, 430.8e3, 546.7e3};
  Knee k = find_knee(cost, speed);
  REQUIRE(k.found);
  CHECK(k.point == 5);
  // Cost doubling while throughput 10, 20, 35, 45, 48: per unit of cost 10, 10, 8.75, 5.6, 3: a tie between the
  // first two goes to the cheaper plan.
  k = find_knee(std::vector<double>{1, 2, 4, 8, 16}, std::vector<double>{10, 20, 35, 45, 48});
  REQUIRE(k.found);
  CHECK(k.point == 0);
  // 10, 15, 8.75: the second.
  CHECK(find_knee(std::vector<double>{1, 2, 4}, std::vector<double>{10, 30, 35}).point == 1);
  CHECK_FALSE(find_knee(std::vector<double>{}, std::vector<double>{}).found);
  CHECK(find_knee(std::vector<double>{3}, std::vector<double>{7}).point == 0);
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

TEST_CASE("The knee's cause is the factor of effective tokens/s per GPU that falls most", "[sweep][tokens]") {
  // 1024 -> 2048 GPUs: trained tokens/s 1.0e6 -> 1.9e6, so per GPU 976.6 -> 927.7: x0.95; batch efficiency
  // 1.0 -> 0.8: x0.8; DiLoCo 1 -> 1. The batch falls most.
  const KneeCause batch = knee_cause({1024, 1.0e6, 1.0, 1.0}, {2048, 1.9e6, 0.8, 1.0});
  CHECK(batch.kind == KneeCauseKind::batch_efficiency);
  CHECK(batch.step_factor == Approx(0.95));
  CHECK(batch.batch_factor == Approx(0.8));
  // The same with the step scaling worse (1.5e6: x0.75) than the batch (x0.8): the step.
  CHECK(knee_cause({1024, 1.0e6, 1.0, 1.0}, {2048, 1.5e6, 0.8, 1.0}).kind == KneeCauseKind::step);
  // DiLoCo 0.9 -> 0.7 (x0.778) against a step x0.95 and batch x1: convergence.
  CHECK(knee_cause({1024, 1.0e6, 1.0, 0.9}, {2048, 1.9e6, 1.0, 0.7}).kind ==
        KneeCauseKind::diloco_convergence);
  // The step falls most (x0.73) but the batch stayed at 33.5 M tokens for twice the GPUs (batch per GPU x0.5) and
  // 2 x 33.5 M > B_opt = 37.5 M: the batch could not grow without costing tokens, so the cause is the batch.
  const KneeCause limited =
      knee_cause({32768, 24.3e6, 1.0, 1.0, 33.5e6, 37.5e6}, {65536, 35.5e6, 1.0, 1.0, 33.5e6, 37.5e6});
  CHECK(limited.kind == KneeCauseKind::batch_limited);
  CHECK(limited.step_factor == Approx(0.7305).epsilon(1e-3));   // (35.5e6/65536) / (24.3e6/32768)
  // The same with room to double the batch (B_opt = 100 M): the step itself.
  CHECK(knee_cause({32768, 24.3e6, 1.0, 1.0, 33.5e6, 100e6}, {65536, 35.5e6, 1.0, 1.0, 33.5e6, 100e6}).kind ==
        KneeCauseKind::step);
  // Nothing falls (perfect scaling, efficiencies unchanged): no cause.
  CHECK(knee_cause({1024, 1.0e6, 1.0, 1.0}, {2048, 2.0e6, 1.0, 1.0}).kind == KneeCauseKind::none);
}
