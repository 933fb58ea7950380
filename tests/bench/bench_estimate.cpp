// bench_estimate: model estimates per second on one core for a few representative scenarios.
// Targets: >= 2 million estimates/s per core (issue 4), >= 2.5 million on the dense cases (issue 13).
// Usage: bench_estimate [seconds per scenario] [name filter] [iterations]
//   A filter runs only the scenarios whose name contains it; iterations > 0 runs exactly that many estimates per
//   path instead of timing for `seconds` (for instruction and cycle counts under callgrind or perf stat).
//
// Two columns per scenario: `into` is model::evaluate_into writing into one reused Estimate, as the search does (one
// Estimate per thread); `fresh` is model::evaluate returning a new Estimate each call (the CLI's path), which also
// pays for zero-filling the Estimate's island slots.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/spec/enum_names.hpp"
#include "model/parallel/consistency.hpp"
#include "model/job/evaluate.hpp"
#include "model/comm/network_profile.hpp"
#include "tests/search_test_support.hpp"

using namespace shardmeter;
using Clock = std::chrono::steady_clock;

namespace {

// Optimisation barriers: the compiler must assume `p` is read and memory changed, so it cannot hoist the
// estimate out of the loop (without copying the scenario, as an "m" operand would).
void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

struct Case {
  std::string name;
  model::Scenario scenario;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  {
    model::Scenario s = test::llama70b_base();
    s.cluster.islands[0].gpus = 512;
    s.plan.tp = 8; s.plan.pp = 4; s.plan.sharding = model::Sharding::zero1;
    s.training.global_batch = 1024;
    out.push_back({"llama-70b 512xH100 tp8 pp4 zero1", s});
  }
  {
    model::Scenario s = test::llama70b_base();
    s.cluster.islands[0].gpus = 1024;
    s.plan.tp = 4; s.plan.pp = 4; s.plan.cp = 2; s.plan.interleave = 2; s.plan.sharding = model::Sharding::hsdp;
    s.plan.shard_group = 32; s.plan.recompute = model::Recompute::full; s.plan.sequence_parallel = true;
    s.training.global_batch = 2048; s.training.micro_batch = 2;
    out.push_back({"llama-70b 1024xH100 tp4 pp4 v2 cp2 hsdp full-recompute", s});
  }
  {
    model::Scenario s = test::gpt13b_base();
    test::set_gpu(s, test::a100_80gb());
    s.plan.tp = 2; s.plan.sharding = model::Sharding::fsdp; s.plan.attention = model::AttentionKernel::standard;
    out.push_back({"gpt-13b 64xA100 tp2 fsdp standard-attention", s});
  }
  {
    // Mixtral-8x7B's shape (scenarios/models/mixtral-8x7b.yaml) on 64 H100: 8 experts, top-2, EP 8 inside the node.
    model::Scenario s = test::llama70b_base();
    s.model.layers = 32; s.model.hidden = 4096; s.model.heads = 32; s.model.kv_heads = 8; s.model.head_dim = 128;
    s.model.ffn_hidden = 14336; s.model.vocab = 32000; s.model.seq_len = 4096;
    s.model.moe.experts = 8; s.model.moe.top_k = 2; s.model.moe.expert_ffn_hidden = 14336;
    s.cluster.islands[0].gpus = 64;
    s.plan.ep = 8; s.plan.sharding = model::Sharding::fsdp; s.plan.recompute = model::Recompute::full;
    s.training.global_batch = 512;
    out.push_back({"MoE: mixtral-8x7b 64xH100 ep8 fsdp full-recompute", s});
  }
  {
    // Two island entries of different speed joined by a 100 Gb/s WAN: the balanced batch split steps each island
    // with the equal share first, then with its balanced share.
    model::Scenario s = test::llama70b_base();
    s.cluster.islands[0].gpus = 512;
    s.cluster.islands[1] = s.cluster.islands[0];
    s.cluster.islands[1].gpu = test::a100_80gb();
    s.cluster.islands[1].price_usd_per_gpu_hour = s.cluster.islands[1].gpu.price_usd_per_gpu_hour;
    s.cluster.island_entries = 2;
    s.cluster.has_wan = true;
    s.cluster.wan.bytes_per_s = 12.5e9;
    s.cluster.wan.latency_s = 0.02;
    s.plan.tp = 8; s.plan.pp = 4; s.plan.sharding = model::Sharding::zero1;
    s.training.global_batch = 1024;
    out.push_back({"2 islands: llama-70b 512xH100 + 512xA100 tp8 pp4 balanced", s});
  }
  {
    // The first case in fp8 (docs/model.md §2.2): the estimate also prices the plan's bf16 twin, to warn when fp8
    // steps slower.
    model::Scenario s = test::llama70b_base();
    s.cluster.islands[0].gpus = 512;
    s.plan.tp = 8; s.plan.pp = 4; s.plan.sharding = model::Sharding::zero1;
    s.training.global_batch = 1024;
    s.training.precision = model::Precision::fp8;
    out.push_back({"fp8: llama-70b 512xH100 zero1 tp8 pp4", s});
  }
  {
    model::Scenario s = test::gpt13b_base();
    s.plan.tp = 3;  // 40 heads: rejected by the first consistency rule
    out.push_back({"gpt-13b tp3 (inconsistent: rejected)", s});
  }
  {
    // The first case on a measured network (docs/network.md): all-reduce, all-gather and reduce-scatter measured on
    // 1, 4, 16 and 64 nodes at 9 sizes each, as calibrate-network writes them; every collective looks it up.
    static const model::NetworkProfile profile = [] {
      model::NetworkProfile p;
      p.gpus_per_node = 8;
      for (model::NetworkOp op : {model::NetworkOp::all_reduce, model::NetworkOp::all_gather,
                                  model::NetworkOp::reduce_scatter}) {
        model::ProfileOp& o = p.ops[static_cast<std::size_t>(op)];
        const int nodes[] = {1, 4, 16, 64};
        o.runs = 4;
        for (std::size_t r = 0; r < 4; ++r) {
          model::ProfileCurve& c = o.curves[r];
          c.nodes = nodes[r];
          c.points = 9;
          for (std::size_t i = 0; i < 9; ++i) {
            c.bytes[i] = 65536.0 * static_cast<double>(1u << (2 * i));
            c.busbw_bytes_per_s[i] = 250e9 / (1.0 + 65536.0 * 64 / c.bytes[i]) / nodes[r];
          }
        }
      }
      model::prepare_profile(p);  // as the profile loader does
      return p;
    }();
    model::Scenario s = test::llama70b_base();
    s.cluster.islands[0].gpus = 512;
    s.plan.tp = 8; s.plan.pp = 4; s.plan.sharding = model::Sharding::zero1;
    s.training.global_batch = 1024;
    s.cluster.islands[0].network_profile = &profile;
    out.push_back({"llama-70b 512xH100 tp8 pp4 zero1, measured network", s});
  }
  return out;
}

// Runs `one()` in batches of 4096 until `seconds` have passed; returns seconds per call.
std::uint64_t g_iterations = 0;  // > 0: exactly this many calls

template <typename F>
double time_per_call(double seconds, F&& one) {
  std::uint64_t n = 0;
  const Clock::time_point start = Clock::now();
  double elapsed = 0;
  if (g_iterations > 0) {
    for (; n < g_iterations; ++n) one();
    return std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(n);
  }
  do {
    for (int i = 0; i < 4096; ++i) one();
    n += 4096;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  return elapsed / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  const std::string filter = argc > 2 ? argv[2] : "";
  g_iterations = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
  std::printf("%-58s %14s %12s %14s %12s %10s\n", "scenario", "into est/s", "into ns", "fresh est/s", "fresh ns",
              "feasible");
  for (const Case& c : cases()) {
    if (c.name.find(filter) == std::string::npos) continue;
    model::Scenario s = c.scenario;
    const model::Estimate probe = model::evaluate(s);
    model::Estimate reused;
    const double into = time_per_call(seconds, [&] {
      escape(&s);
      model::evaluate_into(s, reused);
      escape(&reused);
    });
    const double fresh = time_per_call(seconds, [&] {
      escape(&s);
      const model::Estimate e = model::evaluate(s);
      escape(&e);
    });
    std::printf("%-58s %14.3g %12.1f %14.3g %12.1f %10s\n", c.name.c_str(), 1.0 / into, into * 1e9, 1.0 / fresh,
                fresh * 1e9, probe.feasible ? "yes" : std::string(model::enum_name(probe.reject_reason)).c_str());
  }
  return 0;
}
