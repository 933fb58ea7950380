// The exhaustive engine against the definition of a Pareto front, across thread counts, with and without
// pruning, with constraints, and on spaces with nothing feasible.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "search/exhaustive.hpp"
#include "search/search.hpp"
#include "same_estimate.hpp"
#include "search_test_support.hpp"

using namespace shardmeter;
using namespace shardmeter::test;

namespace {

model::Objective minimise(const model::Metric& m) { return model::Objective{&m, model::Direction::minimize}; }
model::Objective maximise(const model::Metric& m) { return model::Objective{&m, model::Direction::maximize}; }

search::SearchOptions exhaustive() {
  search::SearchOptions o;
  o.method = search::Method::exhaustive;
  return o;
}

void check_counts_add_up(const search::SearchResult& r) {
  const search::SearchCounts& c = r.counts;
  CHECK(c.visited == c.space_size);
  CHECK(c.visited == c.feasible + c.rejected());
  std::uint64_t cheap = 0;  // decided before the model ran: consistency reasons and quotas
  for (std::size_t i = 0; i < c.rejected_by_reason.size(); ++i) {
    const std::string& name = c.reason_names[i];
    const bool after_model = name == "out_of_memory" || name.rfind("max_", 0) == 0 || name.rfind("min_", 0) == 0 ||
                             name == "non_finite_objective" || name == "bound_pruned";
    if (!after_model) cheap += c.rejected_by_reason[i];
  }
  CHECK(c.estimated + c.memory_bound + c.bound_pruned + cheap == c.space_size);
  CHECK(c.pruned <= cheap);
}

// Same points, same order, same bits.
void check_identical(const search::SearchResult& a, const search::SearchResult& b) {
  REQUIRE(a.front.size() == b.front.size());
  for (std::size_t i = 0; i < a.front.size(); ++i) {
    const search::FrontPoint& p = a.front[i];
    const search::FrontPoint& q = b.front[i];
    CHECK(p.index == q.index);
    CHECK(p.labels == q.labels);
    CHECK(std::memcmp(&p.objectives, &q.objectives, sizeof p.objectives) == 0);
    CHECK(search::same_bytes(p.scenario, q.scenario));
    CHECK(test::same_estimate(p.estimate, q.estimate));
  }
  CHECK(a.counts.visited == b.counts.visited);
  CHECK(a.counts.estimated == b.counts.estimated);
  CHECK(a.counts.feasible == b.counts.feasible);
  CHECK(a.counts.pruned == b.counts.pruned);
  CHECK(a.counts.rejected_by_reason == b.counts.rejected_by_reason);
}

void check_equals_brute_force(const search::Space& space, const search::Goal& goal) {
  const search::SearchResult r = search::search(space, goal, exhaustive());
  const std::vector<search::ArchivePoint> expected = brute_force_front(space, goal);
  REQUIRE(r.front.size() == expected.size());
  std::vector<std::uint64_t> got;
  for (const search::FrontPoint& p : r.front) got.push_back(p.index);
  std::sort(got.begin(), got.end());
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(got[i] == expected[i].index);
  // Sorted by the first objective, then index.
  for (std::size_t i = 1; i < r.front.size(); ++i) {
    const auto& a = r.front[i - 1];
    const auto& b = r.front[i];
    CHECK((a.objectives[0] < b.objectives[0] || (a.objectives[0] == b.objectives[0] && a.index < b.index)));
  }
  check_counts_add_up(r);
}

}  // namespace

TEST_CASE("the exhaustive front equals a brute-force Pareto filter") {
  const search::Space space = small_space();
  REQUIRE(space.size() == 4608);
  using model::metric;
  SECTION("cost vs throughput (default)") { check_equals_brute_force(space, search::Goal{}); }
  SECTION("step time vs GPUs") {
    check_equals_brute_force(space, search::Goal{{minimise(metric("step_time_s")), minimise(metric("gpus"))}, {}, {}});
  }
  SECTION("cost, throughput and MFU") {
    std::vector<model::Objective> o = search::default_objectives();
    o.push_back(maximise(metric("mfu")));
    check_equals_brute_force(space, search::Goal{o, {}, {}});
  }
  SECTION("a single objective: the cheapest plans (ties keep the lowest index)") {
    check_equals_brute_force(space, search::Goal{{minimise(metric("total_cost_usd"))}, {}, {}});
  }
  SECTION("four objectives") {
    std::vector<model::Objective> o = search::default_objectives();
    o.push_back(maximise(metric("mfu")));
    o.push_back(minimise(metric("memory_per_gpu_gb")));
    check_equals_brute_force(space, search::Goal{o, {}, {}});
  }
}

TEST_CASE("the small space has inconsistent, out-of-memory and feasible candidates") {
  const search::SearchResult r = search::search(small_space(), search::Goal{}, exhaustive());
  const auto rejections = r.counts.rejections();
  auto count_of = [&](const std::string& name) {
    for (const auto& [n, c] : rejections)
      if (n == name) return c;
    return std::uint64_t{0};
  };
  CHECK(count_of("heads_not_divisible_by_tp") > 0);
  CHECK(count_of("layers_not_divisible_by_pipeline") > 0);
  CHECK(count_of("out_of_memory") > 0);
  CHECK(r.counts.feasible > 0);
  CHECK(r.counts.pruned > 0);
  CHECK(r.complete);
  CHECK(r.method == search::Method::exhaustive);
}

TEST_CASE("1 thread and 4 threads give byte-identical exhaustive results") {
  const search::Space space = small_space();
  search::SearchResult one, four;
  tbb::task_arena(1).execute([&] { one = search::search(space, search::Goal{}, exhaustive()); });
  const tbb::global_control workers(tbb::global_control::max_allowed_parallelism, 4);
  tbb::task_arena(4).execute([&] { four = search::search(space, search::Goal{}, exhaustive()); });
  CHECK(one.threads == 1);
  CHECK(four.threads == 4);
  check_identical(one, four);
}

TEST_CASE("parts of the space searched apart and joined give the whole search's front and counts") {
  // What `mpirun -np N` does (src/distributed/): each process takes ranges from a work source, and rank 0 joins
  // the parts. Here two "processes" take alternate ranges of 7 candidates (odd-sized, so ranges cut pruned
  // blocks), and the joins run in both orders.
  const search::Space space = small_space();
  const search::SearchResult whole = search::search(space, search::Goal{}, exhaustive());
  auto part = [&](std::uint64_t first) {
    search::SearchOptions o = exhaustive();
    std::uint64_t next = first;
    o.work = [&] {
      const search::IndexRange r{next * 7, std::min(space.size(), next * 7 + 7)};
      next += 2;
      return r;
    };
    return search::search(space, search::Goal{}, o);
  };
  const search::SearchResult even = part(0), odd = part(1);
  REQUIRE(even.counts.visited + odd.counts.visited == space.size());
  REQUIRE(even.counts.visited > 0);
  REQUIRE(odd.counts.visited > 0);
  for (const auto& [first, second] : {std::pair{&even, &odd}, std::pair{&odd, &even}}) {
    search::SearchResult joined = *first;
    search::join_part(space, search::Goal{}, exhaustive(), joined, *second);
    check_identical(whole, joined);
    CHECK(joined.complete);
  }
}

TEST_CASE("pruning changes neither the front nor any count but `pruned`") {
  const search::Space space = small_space();
  search::SearchOptions no_prune = exhaustive();
  no_prune.prune = false;
  search::Goal goal;
  goal.quotas.push_back(search::GpuQuota{"h100-sxm", 128});
  const search::SearchResult pruned = search::search(space, goal, exhaustive());
  search::SearchResult full = search::search(space, goal, no_prune);
  CHECK(full.counts.pruned == 0);
  CHECK(pruned.counts.pruned > 0);
  full.counts.pruned = pruned.counts.pruned;
  check_identical(pruned, full);
  check_counts_add_up(pruned);
  check_counts_add_up(full);
}

TEST_CASE("constraints and GPU quotas are honoured") {
  const search::Space space = small_space();
  // Reference values from the unconstrained front.
  const search::SearchResult free = search::search(space, search::Goal{}, exhaustive());
  REQUIRE(free.front.size() >= 3);
  // The limits come from a front point the quota below allows (at most 64 H100), so some plan meets every limit;
  // the quota itself removes the front's larger H100 plans.
  std::vector<const search::FrontPoint*> allowed;
  for (const search::FrontPoint& p : free.front) {
    const model::IslandSpec& isl = p.scenario.cluster.islands[0];
    if (isl.gpu.name.view() != "h100-sxm" || isl.total_gpus() <= 64) allowed.push_back(&p);
  }
  REQUIRE(allowed.size() < free.front.size());   // the quota cuts the unconstrained front
  REQUIRE_FALSE(allowed.empty());
  const search::FrontPoint& reference = *allowed[allowed.size() / 2];
  const double median_cost =
      std::max(free.front[free.front.size() / 2].estimate.total_cost_usd, reference.estimate.total_cost_usd);
  const double min_tps = reference.estimate.tokens_per_s;

  search::Goal goal;
  using search::Limit;
  goal.constraints = {search::limit_metric(model::metric("total_cost_usd"), Limit::at_most, median_cost),
                      search::limit_metric(model::metric("tokens_per_s"), Limit::at_least, min_tps),
                      search::limit_metric(model::metric("wall_clock_days"), Limit::at_most, 1000)};
  goal.quotas = {search::GpuQuota{"h100-sxm", 64}};
  const search::SearchResult r = search::search(space, goal, exhaustive());
  REQUIRE_FALSE(r.front.empty());
  for (const search::FrontPoint& p : r.front) {
    CHECK(p.estimate.total_cost_usd <= median_cost);
    CHECK(p.estimate.tokens_per_s >= min_tps);
    CHECK(p.estimate.wall_clock_s / 86400 <= 1000);
    const model::IslandSpec& isl = p.scenario.cluster.islands[0];
    if (isl.gpu.name.view() == "h100-sxm") CHECK(isl.total_gpus() <= 64);
  }
  check_equals_brute_force(space, goal);
  auto count_of = [&](const std::string& name) {
    for (const auto& [n, c] : r.counts.rejections())
      if (n == name) return c;
    return std::uint64_t{0};
  };
  CHECK(count_of("gpu_quota:h100-sxm") > 0);
  CHECK(count_of("max_total_cost_usd") > 0);
}

TEST_CASE("an infeasible space gives an empty front and counts that say why") {
  const model::Scenario b = gpt13b_base();
  SECTION("nothing fits in memory") {
    model::Scenario big = b;
    big.model.layers = 96; big.model.hidden = 12288; big.model.heads = 96; big.model.kv_heads = 96;
    big.model.ffn_hidden = 4 * 12288;  // GPT-3 175B, unsharded, on 8-16 GPUs
    big.plan.sharding = model::Sharding::none;
    big.cluster.islands[0].gpus = 8;
    const search::Space space(big, {tp_axis(big, {1, 2}), gpus_axis(big, {8, 16}), recompute_axis(big)});
    const search::SearchResult r = search::search(space, search::Goal{}, exhaustive());
    CHECK(r.front.empty());
    CHECK(r.complete);
    CHECK(r.counts.feasible == 0);
    REQUIRE(r.counts.rejections().size() == 1);
    CHECK(r.counts.rejections()[0].first == "out_of_memory");
    CHECK(r.counts.rejections()[0].second == space.size());
  }
  SECTION("no parallel degree divides the model") {
    const search::Space space(b, {tp_axis(b, {3, 7}), recompute_axis(b), gpu_axis(b), micro_batch_axis(b, {1, 2})});
    const search::SearchResult r = search::search(space, search::Goal{}, exhaustive());
    CHECK(r.front.empty());
    CHECK(r.counts.estimated == 0);
    REQUIRE(r.counts.rejections().size() == 1);
    CHECK(r.counts.rejections()[0].first == "heads_not_divisible_by_tp");
    CHECK(r.counts.pruned == space.size() - 2);  // one look per tp value
  }
  SECTION("the quota allows nothing") {
    search::Goal goal;
    goal.quotas = {search::GpuQuota{"h100-sxm", 0}, search::GpuQuota{"a100-sxm-80gb", 0}};
    const search::SearchResult r = search::search(small_space(), goal, exhaustive());
    CHECK(r.front.empty());
    check_counts_add_up(r);
  }
}

TEST_CASE("the --all sink receives every feasible candidate once, in index order, for any thread count") {
  const tbb::global_control workers(tbb::global_control::max_allowed_parallelism, 4);
  const search::Space space = small_space();
  auto run = [&](int threads) {
    std::vector<std::uint64_t> seen;
    search::SearchOptions o = exhaustive();
    o.sink = [&](std::span<const search::CandidateRecord> batch) {
      for (const search::CandidateRecord& r : batch) {
        CHECK(r.estimate.feasible);
        CHECK(r.objectives[0] == r.estimate.total_cost_usd);
        seen.push_back(r.index);
      }
    };
    search::SearchResult result;
    tbb::task_arena(threads).execute([&] { result = search::search(space, search::Goal{}, o); });
    CHECK(seen.size() == result.counts.feasible);
    CHECK(std::is_sorted(seen.begin(), seen.end()));
    CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
    return std::make_pair(seen, result);
  };
  const auto [seen1, r1] = run(1);
  const auto [seen3, r3] = run(3);
  CHECK(seen1 == seen3);
  check_identical(r1, r3);
  const search::SearchResult plain = search::search(space, search::Goal{}, exhaustive());
  check_identical(r1, plain);
}

TEST_CASE("a stop flag or an expired time limit ends the search early, marked incomplete") {
  const search::Space space = small_space();
  std::atomic<bool> stop{true};
  const search::SearchResult stopped = search::search(space, search::Goal{}, exhaustive(), stop);
  CHECK_FALSE(stopped.complete);
  CHECK(stopped.counts.visited < space.size());
  CHECK(stopped.counts.visited == stopped.counts.feasible + stopped.counts.rejected());

  search::SearchOptions timed = exhaustive();
  timed.time_limit_s = 1e-9;
  CHECK_FALSE(search::search(space, search::Goal{}, timed).complete);
}

TEST_CASE("progress is reported, and auto explains its choice") {
  const search::Space space = small_space();
  search::SearchOptions o;  // auto
  o.progress_interval_s = 0;
  std::uint64_t last_done = 0, last_total = 0;
  o.progress = [&](std::uint64_t done, std::uint64_t total) {
    CHECK(done >= last_done);
    last_done = done;
    last_total = total;
  };
  tbb::task_arena(1).execute([&] {
    const search::SearchResult r = search::search(space, search::Goal{}, o);
    CHECK(r.method == search::Method::exhaustive);
    CHECK(r.method_reason.find("exhaustive") != std::string::npos);
  });
  CHECK(last_total == space.size());
  CHECK(last_done > 0);

  o.visit_budget = 100;
  o.auto_time_budget_s = 1e-3;
  o.auto_estimates_per_s = 1e3;
  const search::MethodChoice choice = search::choose_method(space, search::Goal{}, o);
  CHECK(choice.method == search::Method::anneal);
  CHECK(choice.reason.find("anneal") != std::string::npos);
}

TEST_CASE("auto prices the work that pruning leaves, the same way for any thread count") {
  const tbb::global_control workers(tbb::global_control::max_allowed_parallelism, 4);
  const search::Space space = small_space();
  const search::SearchResult r = search::search(space, search::Goal{}, exhaustive());
  // A space that needs exactly r.counts.estimated estimates and some examined candidates: a budget just
  // above their price goes exhaustive, one just below goes anneal; the boundary does not move with threads.
  search::SearchOptions o;
  o.visit_budget = 10;
  o.auto_checks_per_s = 1e6;
  o.auto_estimates_per_s = 1e5;  // an estimate costs 10 checks
  const double estimates_s = static_cast<double>(r.counts.estimated) / o.auto_estimates_per_s;
  std::vector<std::string> reasons;
  for (int threads : {1, 4}) {
    tbb::task_arena(threads).execute([&] {
      o.auto_time_budget_s = estimates_s;  // examined candidates come on top: too little
      CHECK(search::choose_method(space, search::Goal{}, o).method == search::Method::anneal);
      o.auto_time_budget_s = estimates_s + static_cast<double>(space.size()) / o.auto_checks_per_s;
      const search::MethodChoice c = search::choose_method(space, search::Goal{}, o);
      CHECK(c.method == search::Method::exhaustive);
      INFO(c.reason);
      CHECK(c.reason.find(std::to_string(r.counts.estimated) + " an estimate") != std::string::npos);
      reasons.push_back(c.reason);
    });
  }
  CHECK(reasons[0] == reasons[1]);  // same examined count, whatever the split
}

// Issue 4 regression: with 12 GPUs, tp=2 and pp=4 violate "tp*cp*pp divides the island" (blamed on pp and the
// GPU count) but tp=3 with the same pp and GPUs is consistent. Pruning on the blamed fields alone would have
// rejected the whole block, tp=3 included.
TEST_CASE("auto prices a space above the exact-walk limit from a sample, quickly and deterministically") {
  const tbb::global_control workers(tbb::global_control::max_allowed_parallelism, 4);
  const search::Space space = small_space();
  const search::SearchResult exact = search::search(space, search::Goal{}, exhaustive());
  std::atomic<bool> stop{false};
  search::RunControl control;
  control.stop = &stop;
  search::ProgressMeter quiet(search::ProgressFn{}, 0, 1);
  control.progress = &quiet;
  const search::CandidateCheck check(space, search::Goal{}, true);
  const search::Workload walk = search::measure_workload(space, check, control, 1, 1e18);
  // The sampled counts are unbiased estimates of the walk's: with 40,000 draws the estimate count (a share p of
  // the space, standard error sqrt(p(1-p)/n) * size < 1 % of it for p >= 0.1) lands within 5 %.
  const search::SampledWorkload sampled = search::sample_workload(space, check, 40'000);
  REQUIRE(walk.estimates == exact.counts.estimated);
  CHECK(sampled.estimates == Approx(static_cast<double>(walk.estimates)).epsilon(0.05));
  CHECK(sampled.examined == Approx(static_cast<double>(walk.examined)).epsilon(0.1));

  search::SearchOptions o;
  o.visit_budget = 10;
  o.auto_exact_walk_limit = 0;   // sample every space
  search::MethodChoice one, four;
  tbb::task_arena(1).execute([&] { one = search::choose_method(space, search::Goal{}, o); });
  tbb::task_arena(4).execute([&] { four = search::choose_method(space, search::Goal{}, o); });
  CHECK(one.method == search::Method::exhaustive);
  CHECK(one.reason.find("a sample of 16384") != std::string::npos);
  CHECK(one.reason == four.reason);
  o.auto_time_budget_s = 1e-9;
  CHECK(search::choose_method(space, search::Goal{}, o).method == search::Method::anneal);
  o.auto_time_budget_s = 60;
  const search::SearchResult r = search::search(space, search::Goal{}, o);
  CHECK(r.method_decision_s > 0);
  CHECK(r.method_decision_s < 1);
}

TEST_CASE("pruning keeps a plan that pruning on blamed fields alone would drop") {
  model::Scenario b = gpt13b_base();
  b.model.heads = 48; b.model.kv_heads = 48; b.model.ffn_hidden = 12 * 1024; b.model.layers = 48;
  b.cluster.islands[0].gpus = 12;
  b.cluster.islands[0].gpus_per_node = 4;
  b.training.global_batch = 48;
  b.plan.sharding = model::Sharding::fsdp;
  b.training.tokens = 1e9;
  const search::Space space(b, {gpus_axis(b, {12}), pp_axis(b, {4}), tp_axis(b, {2, 3}), recompute_axis(b)});
  const search::SearchResult r = search::search(space, search::Goal{}, exhaustive());
  check_counts_add_up(r);
  REQUIRE_FALSE(r.front.empty());
  for (const search::FrontPoint& p : r.front) CHECK(p.scenario.plan.tp == 3);
  CHECK(r.counts.rejections()[0].first == "parallel_degrees_do_not_divide_gpus");
  CHECK(r.counts.rejections()[0].second == 3);  // tp=2 with each recompute value
}
