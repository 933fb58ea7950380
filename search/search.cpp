#include "search/search.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include "model/job/evaluate.hpp"
#include "search/anneal.hpp"
#include "search/exhaustive.hpp"

namespace shardmeter::search {

namespace {

// The front: decode and re-estimate each archived point (the archive keeps only indices and objectives), sorted
// by the first objective, then index.
std::vector<FrontPoint> decode_front(const Space& space, const CandidateCheck& check, const ParetoArchive& archive) {
  std::vector<FrontPoint> front;
  for (const ArchivePoint& p : archive.points()) {
    FrontPoint& f = front.emplace_back();
    f.index = p.index;
    f.labels = space.labels(p.index);
    f.scenario = space.scenario(p.index);
    f.estimate = model::evaluate(f.scenario);
    f.objectives = check.raw_objectives(f.estimate);
  }
  std::sort(front.begin(), front.end(), [](const FrontPoint& a, const FrontPoint& b) {
    if (a.objectives[0] != b.objectives[0]) return a.objectives[0] < b.objectives[0];
    return a.index < b.index;
  });
  return front;
}

double screen_share(const SampledWorkload& w) {
  return w.reached_memory_screen == 0 ? 0.0
                                      : static_cast<double>(w.memory_screened_out) /
                                            static_cast<double>(w.reached_memory_screen);
}

// Per candidate reaching it, the memory bound costs about this share of one estimate (callgrind, issue 32: 9.4 % of
// a search's instructions for a bound that pays above about 26 % rejection; docs/performance.md).
constexpr double kMemoryScreenPaysAbove = 0.26;

}  // namespace

bool memory_screen_pays(double share) noexcept { return share < 0 || share >= kMemoryScreenPaysAbove; }

void join_part(const Space& space, const Goal& goal, const SearchOptions& options, SearchResult& total,
               const SearchResult& part) {
  const CandidateCheck check(space, goal, options.prune);
  ParetoArchive archive(check.objective_count());
  model::Estimate estimate;
  for (const std::vector<FrontPoint>* front : {static_cast<const std::vector<FrontPoint>*>(&total.front), &part.front})
    for (const FrontPoint& p : *front) {
      const Outcome o = check.check(space.scenario(p.index), estimate);
      if (o.code != Outcome::kFeasible)
        throw std::invalid_argument(fmt::format("search: joined front point {} is not feasible", p.index));
      archive.insert(p.index, o.objectives);
    }
  total.front = decode_front(space, check, archive);
  total.counts.add(part.counts);
  total.complete = total.complete && part.complete;
}

MethodChoice choose_method(const Space& space, const Goal& goal, const SearchOptions& options,
                           std::atomic<bool>& stop) {
  if (options.method == Method::exhaustive) return {Method::exhaustive, "exhaustive (requested)"};
  if (options.method == Method::anneal) return {Method::anneal, "anneal (requested)"};
  if (space.size() <= options.visit_budget)
    return {Method::exhaustive, fmt::format("auto chose exhaustive: the space ({} candidates) is no larger than the "
                                            "annealing budget ({} visits)",
                                            space.size(), options.visit_budget)};
  const double budget_s = options.time_limit_s > 0 ? options.time_limit_s : options.auto_time_budget_s;
  const CandidateCheck check(space, goal, options.prune);
  if (space.size() > options.auto_exact_walk_limit && options.auto_sample > 0) {
    const SampledWorkload w = sample_workload(space, check, options.auto_sample);
    const double share = screen_share(w);
    const double predicted_s = w.examined / options.auto_checks_per_s + w.estimates / options.auto_estimates_per_s;
    const std::string basis =
        fmt::format("a sample of {} of {} candidates predicts about {:.3g} need a look after pruning and {:.3g} an "
                    "estimate, about {:.3g} s at {:g} checks/s and {:g} estimates/s on one thread (budget {:g} s)",
                    options.auto_sample, space.size(), w.examined, w.estimates, predicted_s, options.auto_checks_per_s,
                    options.auto_estimates_per_s, budget_s);
    if (predicted_s <= budget_s) return {Method::exhaustive, "auto chose exhaustive: " + basis, 0, share};
    return {Method::anneal,
            fmt::format("auto chose anneal: {}; annealing with a budget of {} visits", basis, options.visit_budget), 0,
            share};
  }
  ProgressMeter quiet(ProgressFn{}, 0, 1);
  RunControl control;
  control.stop = &stop;
  control.progress = &quiet;
  // Work in cheap-check units: one per examined candidate, estimate_cost more per model estimate.
  const double estimate_cost = options.auto_checks_per_s / options.auto_estimates_per_s;
  const Workload w = measure_workload(space, check, control, estimate_cost, budget_s * options.auto_checks_per_s);
  if (!w.exceeded) {
    const double predicted_s = static_cast<double>(w.examined) / options.auto_checks_per_s +
                               static_cast<double>(w.estimates) / options.auto_estimates_per_s;
    return {Method::exhaustive,
            fmt::format("auto chose exhaustive: of {} candidates, {} need a look after pruning and {} an estimate, "
                        "about {:.3g} s at {:g} checks/s and {:g} estimates/s on one thread (budget {:g} s)",
                        space.size(), w.examined, w.estimates, predicted_s, options.auto_checks_per_s,
                        options.auto_estimates_per_s, budget_s)};
  }
  return {Method::anneal,
          fmt::format("auto chose anneal: enumerating {} candidates would exceed the {:g} s budget (at {:g} checks/s "
                      "and {:g} estimates/s on one thread, after pruning); annealing with a budget of {} visits",
                      space.size(), budget_s, options.auto_checks_per_s, options.auto_estimates_per_s,
                      options.visit_budget)};
}

MethodChoice choose_method(const Space& space, const Goal& goal, const SearchOptions& options) {
  std::atomic<bool> stop{false};
  return choose_method(space, goal, options, stop);
}

namespace {

MethodChoice choose_method_timed(const Space& space, const Goal& goal, const SearchOptions& options,
                                 std::atomic<bool>& stop) {
  const Clock::time_point start = Clock::now();
  MethodChoice choice = choose_method(space, goal, options, stop);
  if (options.method == Method::automatic)
    choice.decision_s = std::chrono::duration<double>(Clock::now() - start).count();
  return choice;
}

}  // namespace

SearchResult search(const Space& space, const Goal& goal, const SearchOptions& options, std::atomic<bool>& stop) {
  const Clock::time_point start = Clock::now();
  if (options.chains < 1) throw std::invalid_argument("search: chains must be at least 1");
  CandidateCheck check(space, goal, options.prune);
  const MethodChoice choice = choose_method_timed(space, goal, options, stop);
  // The memory bound, on or off from a sample of the space: auto's own when it took one, else one of the same size
  // on spaces as large (smaller spaces keep it: their searches are short either way).
  double share = choice.memory_screen_share;
  if (share < 0 && space.size() > options.auto_exact_walk_limit && options.auto_sample > 0)
    share = screen_share(sample_workload(space, check, options.auto_sample));
  check.set_memory_screen(memory_screen_pays(share));

  const std::uint64_t planned = choice.method == Method::exhaustive ? space.size() : options.visit_budget;
  ProgressMeter meter(options.progress, planned, options.progress_interval_s);
  RunControl control;
  control.stop = &stop;
  control.progress = &meter;
  if (options.time_limit_s > 0)
    control.deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.time_limit_s));

  EngineOutput out = choice.method == Method::exhaustive ? run_exhaustive(space, check, options, control)
                                                         : run_anneal(space, check, options, control);

  SearchResult result;
  result.objectives = check.objectives();
  result.method = choice.method;
  result.method_reason = choice.reason;
  result.method_decision_s = choice.decision_s;
  result.threads = tbb::this_task_arena::max_concurrency();
  result.seed = options.seed;
  result.complete = out.complete;

  SearchCounts& c = result.counts;
  c.space_size = space.size();
  c.visited = out.tally.visited;
  c.estimated = out.tally.estimated;
  c.memory_bound = out.tally.memory_bound;
  c.bound_pruned = out.tally.bound_pruned;
  c.feasible = out.tally.feasible;
  c.pruned = out.tally.pruned;
  c.estimated_counts = out.estimated_counts;
  c.reason_names = check.code_names();
  c.rejected_by_reason = out.tally.rejected;
  c.rejected_by_reason.resize(c.reason_names.size(), 0);

  result.front = decode_front(space, check, out.archive);

  result.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  result.candidates_per_s = result.elapsed_s > 0 ? static_cast<double>(c.visited) / result.elapsed_s : 0;
  return result;
}

SearchResult search(const Space& space, const Goal& goal, const SearchOptions& options) {
  std::atomic<bool> stop{false};
  return search(space, goal, options, stop);
}

}  // namespace shardmeter::search
