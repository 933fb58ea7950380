// bench_search: exhaustive search throughput on a realistic Llama-3-70B plan space built in code.
// Reports candidates/s per thread (rejections included) with and without pruning, the 1 -> 2 thread scaling,
// and the time of a ~100-million-candidate space. Targets (issue 4, 2-core machine): >= 1M candidates/s per
// thread including rejections; 1e8 candidates in < 60 s.
// Usage: bench_search [--quick]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "search/search.hpp"
#include "tests/search_test_support.hpp"

using namespace shardmeter;

namespace {

model::GpuSpec h200() {
  model::GpuSpec g = test::h100_sxm();
  g.name = model::FixedName("h200-sxm");
  g.hbm_bytes = 141e9;
  g.hbm_bytes_per_s = 4.8e12;
  g.price_usd_per_gpu_hour = 3.6;
  return g;
}

std::vector<int> range(int from, int to, int step) {
  std::vector<int> v;
  for (int x = from; x <= to; x += step) v.push_back(x);
  return v;
}

search::Axis bool_axis(const model::Scenario& b, std::string name, bool model::PlanSpec::*field) {
  return test::make_axis<int>(
      b, std::move(name), {0, 1}, [field](model::Scenario& s, const int& v) { s.plan.*field = v != 0; },
      [](const int& v) { return v ? std::string("true") : std::string("false"); });
}

// gpu type x GPUs x tp x pp x cp x interleave x micro_batch x sharding x recompute x global_batch (+ more).
// gpus_step 0: powers of two from 64 to 8192 (most candidates are consistent and reach the model).
search::Space llama70b_space(int gpus_step, bool large) {
  const model::Scenario b = test::llama70b_base();
  std::vector<search::Axis> axes;
  axes.push_back(test::make_axis<model::GpuSpec>(
      b, "cluster.islands.0.gpu", {test::a100_80gb(), test::h100_sxm(), h200()},
      [](model::Scenario& s, const model::GpuSpec& g) { test::set_gpu(s, g); },
      [](const model::GpuSpec& g) { return std::string(g.name.view()); }));
  std::vector<int> gpus;
  if (gpus_step > 0) {
    gpus = range(64, 8192, gpus_step);
  } else {
    for (int g = 64; g <= 8192; g *= 2) gpus.push_back(g);
  }
  axes.push_back(test::gpus_axis(b, gpus));
  axes.push_back(test::tp_axis(b, {1, 2, 4, 8}));
  axes.push_back(test::pp_axis(b, large ? std::vector<int>{1, 2, 4, 5, 8, 10, 16, 20} : std::vector<int>{1, 2, 4, 8, 16}));
  axes.push_back(test::cp_axis(b, {1, 2}));
  axes.push_back(test::interleave_axis(b, {1, 2}));
  axes.push_back(test::micro_batch_axis(b, {1, 2, 4}));
  axes.push_back(test::sharding_axis(b, {model::Sharding::zero1, model::Sharding::fsdp, model::Sharding::hsdp}));
  axes.push_back(test::recompute_axis(b));
  axes.push_back(test::global_batch_axis(b, large ? std::vector<int>{256, 512, 1024, 2048, 4096} : std::vector<int>{512, 1024, 2048}));
  axes.push_back(bool_axis(b, "plan.sequence_parallel", &model::PlanSpec::sequence_parallel));
  if (large) axes.push_back(bool_axis(b, "plan.tp_comm_overlap", &model::PlanSpec::tp_comm_overlap));
  return search::Space(b, std::move(axes));
}

search::SearchResult run(const search::Space& space, int threads, bool prune) {
  search::SearchOptions o;
  o.method = search::Method::exhaustive;
  o.prune = prune;
  search::SearchResult r;
  tbb::task_arena(threads).execute([&] { r = search::search(space, search::Goal{}, o); });
  return r;
}

bool same_front(const search::SearchResult& a, const search::SearchResult& b) {
  if (a.front.size() != b.front.size() || a.counts.rejected_by_reason != b.counts.rejected_by_reason) return false;
  for (std::size_t i = 0; i < a.front.size(); ++i)
    if (a.front[i].index != b.front[i].index) return false;
  return true;
}

void report(const char* label, const search::SearchResult& r) {
  const auto& c = r.counts;
  std::printf("%-34s %2d thr %12llu cand %7.2f s %8.3g cand/s %8.3g cand/s/thr | estimated %5.1f%% pruned %5.1f%% "
              "feasible %5.1f%% front %zu\n",
              label, r.threads, static_cast<unsigned long long>(c.visited), r.elapsed_s, r.candidates_per_s,
              r.candidates_per_s / r.threads, 100.0 * c.estimated / c.visited, 100.0 * c.pruned / c.visited,
              100.0 * c.feasible / c.visited, r.front.size());
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int cores = tbb::info::default_concurrency();
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(cores));

  const search::Space dense = llama70b_space(0, true);
  std::printf("dense space (GPUs 64..8192 x2): %llu candidates (%d axes)\n", static_cast<unsigned long long>(dense.size()),
              dense.axis_count());
  const search::SearchResult d1 = run(dense, 1, true);
  report("dense, 1 thread", d1);
  const search::SearchResult d2 = run(dense, cores, true);
  report("dense, all threads", d2);
  std::printf("thread scaling 1 -> %d: %.2fx\n\n", cores, d1.elapsed_s / d2.elapsed_s);

  const search::Space medium = llama70b_space(64, false);
  std::printf("medium space (GPUs 64..8192 +64): %llu candidates (%d axes)\n",
              static_cast<unsigned long long>(medium.size()), medium.axis_count());
  const search::SearchResult p1 = run(medium, 1, true);
  report("pruned, 1 thread", p1);
  const search::SearchResult p2 = run(medium, cores, true);
  report("pruned, all threads", p2);
  std::printf("thread scaling 1 -> %d: %.2fx\n", cores, p1.elapsed_s / p2.elapsed_s);
  const search::SearchResult u1 = run(medium, 1, false);
  report("no pruning, 1 thread", u1);
  const search::SearchResult u2 = run(medium, cores, false);
  report("no pruning, all threads", u2);
  std::printf("thread scaling 1 -> %d without pruning: %.2fx\n\n", cores, u1.elapsed_s / u2.elapsed_s);
  if (quick) return 0;

  const search::Space large = llama70b_space(16, true);
  std::printf("large space (GPUs 64..8192 +16, more pp/batch values, tp_comm_overlap): %llu candidates (%d axes)\n",
              static_cast<unsigned long long>(large.size()), large.axis_count());
  const search::SearchResult l = run(large, cores, true);
  report("large, pruned, all threads", l);
  std::printf("1e8-candidate target (< 60 s): %.2f s for %.3g candidates\n", l.elapsed_s,
              static_cast<double>(l.counts.visited));
  const search::SearchResult lu = run(large, cores, false);
  report("large, no pruning, all threads", lu);
  std::printf("pruned and unpruned searches agree (front, rejections by reason): %s\n", same_front(l, lu) ? "yes" : "NO");
  std::printf("auto on the large space: %s\n", search::choose_method(large, search::Goal{}, search::SearchOptions{}).reason.c_str());
  return 0;
}
