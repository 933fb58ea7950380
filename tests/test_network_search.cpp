// The search follows a measured network (docs/network.md, issue 29): when a cluster's all-gather bandwidth falls 20x
// from 1 to 64 nodes, the fastest plan at 64 nodes is no longer pure data parallelism.
#include <catch2/catch.hpp>

#include "model/comm/network_profile.hpp"
#include "search/search.hpp"
#include "search_test_support.hpp"

using namespace shardmeter;
using namespace shardmeter::test;

namespace {

// all-gather, reduce-scatter and all-reduce measured on 1 and 64 nodes of 8 GPUs: 250 GB/s of bus bandwidth on one
// node, 12.5 GB/s (20x less) on 64, at every size from 1 KB to 10 GB.
model::NetworkProfile collapsing_profile() {
  model::NetworkProfile p;
  p.gpus_per_node = 8;
  for (model::NetworkOp op : {model::NetworkOp::all_gather, model::NetworkOp::reduce_scatter, model::NetworkOp::all_reduce}) {
    model::ProfileOp& o = p.ops[static_cast<std::size_t>(op)];
    o.runs = 2;
    o.curves[0].nodes = 1;
    o.curves[1].nodes = 64;
    for (std::size_t r = 0; r < 2; ++r) {
      o.curves[r].points = 2;
      o.curves[r].bytes = {1e3, 1e10};
      const double bw = r == 0 ? 250e9 : 12.5e9;
      o.curves[r].busbw_bytes_per_s = {bw, bw};
    }
  }
  return p;
}

// GPT-3 13B on 64 nodes of 8 H100s, ZeRO-1: the plans TP x PP over the 512 GPUs.
search::Space plans(const model::Scenario& base) {
  std::vector<search::Axis> axes;
  axes.push_back(tp_axis(base, {1, 2, 4, 8}));
  axes.push_back(pp_axis(base, {1, 2, 4}));
  return search::Space(base, std::move(axes));
}

model::Scenario base_at_64_nodes() {
  model::Scenario b = gpt13b_base();
  b.cluster.islands[0].gpus = 512;
  b.training.global_batch = 1024;
  return b;
}

// The fastest feasible plan of the space, as the search's front reports it.
model::Scenario fastest(const search::Space& space) {
  const search::Goal goal{{model::Objective{&model::metric("tokens_per_s"), model::Direction::maximize}}, {}, {}};
  search::SearchOptions options;
  options.method = search::Method::exhaustive;
  const search::SearchResult r = search::search(space, goal, options);
  REQUIRE(!r.front.empty());
  return r.front.front().scenario;
}

}  // namespace

TEST_CASE("A measured network moves the front off pure data parallelism at 64 nodes") {
  const model::NetworkProfile profile = collapsing_profile();
  // The 20x fall itself: 250 GB/s on 1 node, 12.5 GB/s on 64.
  REQUIRE(model::profile_busbw(profile, model::NetworkOp::all_gather, 1e8, 1).busbw_bytes_per_s == Approx(250e9));
  REQUIRE(model::profile_busbw(profile, model::NetworkOp::all_gather, 1e8, 64).busbw_bytes_per_s == Approx(12.5e9));

  model::Scenario modelled = base_at_64_nodes();
  const model::Scenario ideal = fastest(plans(modelled));
  // The modelled network: pure data parallelism is the fastest plan.
  CHECK(ideal.plan.tp == 1);
  CHECK(ideal.plan.pp == 1);

  model::Scenario measured = base_at_64_nodes();
  measured.cluster.islands[0].network_profile = &profile;
  const model::Scenario best = fastest(plans(measured));
  // The measured network: the fastest plan splits the model (TP inside the node's 250 GB/s, fewer bytes over 64 nodes).
  CHECK(best.plan.tp * best.plan.pp > 1);
  CAPTURE(best.plan.tp, best.plan.pp);
  model::Estimate e = model::evaluate(best);
  CHECK(e.islands[0].collectives.dp == model::CollectiveAlgorithm::measured);
}
