#pragma once
// Small hand-built search spaces for the search tests: a GPT-like model on one island of A100s or H100s, and
// axes made by patching that base scenario (as the CLI does from YAML values). The GPUs are the one fixture set of
// tests/support/model_fixtures.hpp.
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/parallel/consistency.hpp"
#include "model/job/evaluate.hpp"
#include "model/spec/scenario.hpp"
#include "search/candidate_check.hpp"
#include "search/goal.hpp"
#include "search/pareto_archive.hpp"
#include "search/patch.hpp"
#include "search/space.hpp"
#include "model_fixtures.hpp"

namespace shardmeter::test {

namespace m = shardmeter::model;
namespace s = shardmeter::search;

inline void set_gpu(m::Scenario& sc, const m::GpuSpec& gpu) {
  sc.cluster.islands[0].gpu = gpu;
  sc.cluster.islands[0].price_usd_per_gpu_hour = gpu.price_usd_per_gpu_hour;
}

// GPT-3 13B (Brown et al. 2020, Table 2.1) on 64 H100s, trained on 300B tokens.
inline m::Scenario gpt13b_base() {
  m::Scenario sc{};
  m::ModelSpec& mo = sc.model;
  mo.layers = 40; mo.hidden = 5120; mo.heads = 40; mo.kv_heads = 40; mo.head_dim = 128;
  mo.ffn_hidden = 4 * 5120; mo.vocab = 50257; mo.seq_len = 2048;
  sc.training.global_batch = 512;
  sc.training.micro_batch = 1;
  sc.training.tokens = 300e9;
  sc.cluster.island_entries = 1;
  m::IslandSpec& isl = sc.cluster.islands[0];
  isl.name = m::FixedName("island0");
  isl.gpus = 64;
  isl.gpus_per_node = 8;
  isl.count = 1;
  isl.node_network = m::LinkSpec{m::FixedName("ib-ndr"), 400e9, 0.8, 5e-6};
  set_gpu(sc, h100_sxm());
  sc.plan.sharding = m::Sharding::zero1;
  return sc;
}

// Llama-3 70B (Grattafiori et al. 2024, Table 3) on 64 H100s with a 50 GB/s-per-node scale-out network, trained
// on 2T tokens: communication and memory make cost grow with the GPU count, so fronts have real trade-offs.
inline m::Scenario llama70b_base() {
  m::Scenario sc = gpt13b_base();
  m::ModelSpec& mo = sc.model;
  mo.layers = 80; mo.hidden = 8192; mo.heads = 64; mo.kv_heads = 8; mo.head_dim = 128; mo.ffn_hidden = 28672;
  mo.vocab = 128256; mo.seq_len = 4096;
  mo.ffn_type = m::FfnType::swiglu; mo.norm = m::NormType::rmsnorm; mo.position_embedding = m::PositionEmbedding::rope;
  mo.bias = false; mo.tied_embeddings = false; mo.dropout = false;
  sc.training.tokens = 2e12;
  sc.cluster.islands[0].node_network.bytes_per_s = 50e9;
  return sc;
}

// One axis: each value applied to a byte copy of the base (so padding stays as in the base), then diffed.
template <typename T>
s::Axis make_axis(const m::Scenario& base, std::string name, const std::vector<T>& values,
                  const std::function<void(m::Scenario&, const T&)>& set,
                  const std::function<std::string(const T&)>& label) {
  s::Axis axis;
  axis.name = std::move(name);
  for (const T& v : values) {
    m::Scenario modified;
    std::memcpy(static_cast<void*>(&modified), &base, sizeof(m::Scenario));
    set(modified, v);
    axis.labels.push_back(label(v));
    axis.patches.push_back(s::make_patch(base, modified));
  }
  return axis;
}

inline s::Axis int_axis(const m::Scenario& base, std::string name, std::vector<int> values,
                        std::function<void(m::Scenario&, const int&)> set) {
  return make_axis<int>(base, std::move(name), values, set, [](const int& v) { return std::to_string(v); });
}

inline s::Axis tp_axis(const m::Scenario& b, std::vector<int> v) {
  return int_axis(b, "plan.tp", std::move(v), [](m::Scenario& sc, const int& x) { sc.plan.tp = x; });
}
inline s::Axis pp_axis(const m::Scenario& b, std::vector<int> v) {
  return int_axis(b, "plan.pp", std::move(v), [](m::Scenario& sc, const int& x) { sc.plan.pp = x; });
}
inline s::Axis cp_axis(const m::Scenario& b, std::vector<int> v) {
  return int_axis(b, "plan.cp", std::move(v), [](m::Scenario& sc, const int& x) { sc.plan.cp = x; });
}
inline s::Axis interleave_axis(const m::Scenario& b, std::vector<int> v) {
  return int_axis(b, "plan.interleave", std::move(v), [](m::Scenario& sc, const int& x) { sc.plan.interleave = x; });
}
inline s::Axis micro_batch_axis(const m::Scenario& b, std::vector<int> v) {
  return int_axis(b, "training.micro_batch", std::move(v),
                  [](m::Scenario& sc, const int& x) { sc.training.micro_batch = x; });
}
inline s::Axis global_batch_axis(const m::Scenario& b, std::vector<int> v) {
  return int_axis(b, "training.global_batch", std::move(v),
                  [](m::Scenario& sc, const int& x) { sc.training.global_batch = x; });
}
inline s::Axis gpus_axis(const m::Scenario& b, std::vector<int> v) {
  return int_axis(b, "cluster.islands.0.gpus", std::move(v),
                  [](m::Scenario& sc, const int& x) { sc.cluster.islands[0].gpus = x; });
}
inline s::Axis sharding_axis(const m::Scenario& b, std::vector<m::Sharding> v) {
  return make_axis<m::Sharding>(
      b, "plan.sharding", v, [](m::Scenario& sc, const m::Sharding& x) { sc.plan.sharding = x; },
      [](const m::Sharding& x) { return std::to_string(static_cast<int>(x)); });
}
inline s::Axis recompute_axis(const m::Scenario& b) {
  return make_axis<m::Recompute>(
      b, "plan.recompute", {m::Recompute::none, m::Recompute::selective, m::Recompute::full},
      [](m::Scenario& sc, const m::Recompute& x) { sc.plan.recompute = x; },
      [](const m::Recompute& x) { return std::to_string(static_cast<int>(x)); });
}
inline s::Axis gpu_axis(const m::Scenario& b) {
  return make_axis<m::GpuSpec>(
      b, "cluster.islands.0.gpu", {a100_80gb(), h100_sxm()}, [](m::Scenario& sc, const m::GpuSpec& g) { set_gpu(sc, g); },
      [](const m::GpuSpec& g) { return std::string(g.name.view()); });
}

inline const std::vector<m::Sharding> kAllSharding = {m::Sharding::none, m::Sharding::zero1, m::Sharding::zero2,
                                                       m::Sharding::fsdp, m::Sharding::hsdp};

// 4 * 4 * 3 * 4 * 3 * 4 * 2 = 4608 candidates, a mix of inconsistent, out-of-memory and feasible ones.
inline s::Space small_space() {
  const m::Scenario b = gpt13b_base();
  std::vector<s::Axis> axes;
  axes.push_back(gpu_axis(b));
  axes.push_back(gpus_axis(b, {32, 64, 128, 256}));
  axes.push_back(recompute_axis(b));
  axes.push_back(micro_batch_axis(b, {1, 2, 4}));
  axes.push_back(sharding_axis(b, {m::Sharding::none, m::Sharding::zero1, m::Sharding::fsdp, m::Sharding::hsdp}));
  axes.push_back(pp_axis(b, {1, 2, 4, 64}));  // 64 stages exceed 40 layers
  axes.push_back(tp_axis(b, {1, 2, 3, 8}));
  return s::Space(b, std::move(axes));
}

// The front by definition: every candidate checked independently, then an O(n^2) filter keeping the points no
// other point beats (dominates, or equals with a lower index). Minimised objectives.
inline std::vector<s::ArchivePoint> brute_force_front(const s::Space& space, const s::Goal& goal) {
  const s::CandidateCheck check(space, goal, /*prune=*/false);
  std::vector<s::ArchivePoint> feasible;
  m::Estimate e;
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    const s::Outcome o = check.check(space.scenario(i), e);
    if (o.code == s::Outcome::kFeasible) feasible.push_back(s::ArchivePoint{i, o.objectives});
  }
  const int k = check.objective_count();
  std::vector<s::ArchivePoint> front;
  for (const s::ArchivePoint& q : feasible) {
    bool beaten = false;
    for (const s::ArchivePoint& p : feasible)
      if (s::beats(p, q, k)) {
        beaten = true;
        break;
      }
    if (!beaten) front.push_back(q);
  }
  return front;  // increasing index
}

}  // namespace shardmeter::test
