#include <catch2/catch.hpp>

#include "model/job/evaluate.hpp"
#include "model/memory/memory.hpp"
#include "model/kernels/parameters.hpp"
#include "same_estimate.hpp"
#include "search/candidate_check.hpp"
#include "search/search.hpp"
#include "search_test_support.hpp"

using namespace shardmeter;

// Issue 32: the memory screen is adaptive and the parameters are counted once per candidate. Neither may change an
// outcome: the screen off, the estimate rejects the same candidates; the counts handed over are the same counts.

TEST_CASE("the memory screen off gives every candidate the same outcome, the estimate rejecting what it rejected",
          "[search][memory_screen]") {
  const search::Space space = test::small_space();
  const search::Goal goal;
  const search::CandidateCheck on(space, goal, false);
  search::CandidateCheck off(space, goal, false);
  off.set_memory_screen(false);
  REQUIRE(on.memory_screen());
  REQUIRE_FALSE(off.memory_screen());
  model::Estimate e_on, e_off;
  int screened = 0;
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    const model::Scenario s = space.scenario(i);
    const search::Outcome a = on.check(s, e_on);
    const search::Outcome b = off.check(s, e_off);
    INFO("candidate " << i);
    REQUIRE(a.code == b.code);
    CHECK_FALSE(b.memory_bound);
    if (a.memory_bound) {
      ++screened;
      CHECK(b.estimated);   // the estimate ran and said out_of_memory itself
      CHECK(b.code == static_cast<int>(model::RejectReason::out_of_memory));
    }
    if (a.code == search::Outcome::kFeasible)
      for (int o = 0; o < on.objective_count(); ++o) CHECK(a.objectives[o] == b.objectives[o]);
  }
  CHECK(screened > 0);   // the space has candidates the screen rejects, so the comparison above means something
}

TEST_CASE("the memory screen pays from a quarter of rejections on; without a sample it stays on",
          "[search][memory_screen]") {
  CHECK(search::memory_screen_pays(-1));
  CHECK(search::memory_screen_pays(0.5));
  CHECK(search::memory_screen_pays(0.26));
  CHECK_FALSE(search::memory_screen_pays(0.25));
  CHECK_FALSE(search::memory_screen_pays(0.0));
}

TEST_CASE("parameters counted once and handed to the screen and the estimate give the same results",
          "[search][memory_screen]") {
  const search::Space space = test::small_space();
  model::Estimate handed, counted;
  int compared = 0;
  for (std::uint64_t i = 0; i < space.size(); i += 7) {
    const model::Scenario s = space.scenario(i);
    if (model::check_consistency(s)) continue;
    const model::ParameterCounts p = model::count_parameters(s.model);
    CHECK(model::model_states_exceed_memory(s, p) == model::model_states_exceed_memory(s));
    model::evaluate_consistent_into(s, p, handed);
    model::evaluate_consistent_into(s, counted);
    CHECK(test::same_estimate(handed, counted));
    CHECK(test::same_estimate(handed, model::evaluate(s)));
    ++compared;
  }
  CHECK(compared > 50);
}
