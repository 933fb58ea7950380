#include "tests/report_test_fronts.hpp"

#include <algorithm>
#include <cmath>

#include "model/parallel/layout.hpp"
#include "results/files/hdf5_writer.hpp"

namespace shardmeter::test {

namespace m = shardmeter::model;

results::PlanPoint plan_point(const PlanPoint& p) {
  results::PlanPoint f{};
  m::Scenario& s = f.scenario;
  s.model.layers = p.layers;
  s.model.hidden = p.hidden;
  s.model.heads = p.heads;
  s.model.kv_heads = p.kv_heads;
  s.model.head_dim = p.head_dim > 0 ? p.head_dim : p.hidden / p.heads;
  s.model.moe = p.moe;
  s.model.mla = p.mla;
  s.model.mtp_layers = p.mtp_layers;
  s.model.attention_window = p.attention_window;
  s.model.full_attention_every = p.full_attention_every;
  s.plan.ep = p.ep;
  s.plan.etp = p.etp;
  s.plan.ep_dispatcher = p.ep_dispatcher;
  s.plan.ep_overlap = p.ep_overlap;
  s.plan.moe_recompute = p.moe_recompute;
  s.plan.recompute_modules = p.recompute_modules;
  s.model.ffn_hidden = p.ffn_hidden;
  s.model.ffn_type = m::FfnType::swiglu;
  s.model.vocab = 128256;
  s.model.seq_len = p.seq_len;
  s.model.norm = m::NormType::rmsnorm;
  s.model.position_embedding = m::PositionEmbedding::rope;
  s.model.bias = false;
  s.model.tied_embeddings = false;
  s.training.global_batch = p.global_batch;
  s.training.micro_batch = p.micro_batch;
  s.training.tokens = 15e12;
  s.training.precision = p.precision;
  s.plan.tp = p.tp;
  s.plan.pp = p.pp;
  s.plan.cp = p.cp;
  s.plan.interleave = p.interleave;
  s.plan.pp_first_stage_layers = p.pp_first_stage_layers;
  s.plan.pp_last_stage_layers = p.pp_last_stage_layers;
  s.plan.pp_embedding_layers = p.pp_embedding_layers;
  s.plan.pp_head_layers = p.pp_head_layers;
  s.plan.sequence_parallel = p.sequence_parallel;
  s.plan.sharding = p.sharding;
  s.plan.shard_group = p.shard_group;
  s.plan.recompute = p.recompute;
  s.plan.recompute_layers = p.recompute_layers;
  s.plan.reshard_after_forward = p.reshard_after_forward;
  s.plan.tp_dgrad_overlap = p.tp_dgrad_overlap;
  s.plan.tp_comm_overlap = p.tp_comm_overlap;
  s.plan.sync = p.sync;
  s.plan.diloco.inner_steps = p.inner_steps;
  s.plan.diloco.outer_bits = p.outer_bits;
  s.plan.diloco.fragments = p.fragments;
  s.plan.diloco.overlap_steps = p.overlap_steps;
  s.cluster.island_entries = p.second ? 2 : 1;
  const auto set_island = [&](int i, const std::string& gpu, int gpus, int count) {
    m::IslandSpec& isl = s.cluster.islands[static_cast<std::size_t>(i)];
    isl.name.assign(i == 0 ? "us-east" : "eu-west");
    isl.gpu.name.assign(gpu);
    isl.gpus = gpus;
    isl.count = count;
    isl.gpus_per_node = p.gpus_per_node;
    isl.price_usd_per_gpu_hour = 2.0 + i;
    isl.node_network.bytes_per_s = 3200e9 / 8;
  };
  set_island(0, p.gpu, p.gpus, p.count);
  if (p.second) set_island(1, p.second->first, p.second->second, 1);

  m::Estimate& e = f.estimate;
  e.feasible = p.feasible;
  if (!p.feasible) {
    e.reject_reason = m::RejectReason::out_of_memory;
    e.bottleneck = m::Bottleneck::memory_capacity;
  }
  e.tokens_per_s = p.tokens_per_s;
  e.effective_tokens_per_s = p.tokens_per_s;
  e.total_cost_usd = p.cost_usd;
  e.mfu = 0.38;
  e.gpus = static_cast<int>(s.cluster.total_gpus());
  e.wall_clock_s = 15e12 / p.tokens_per_s;
  e.memory_per_gpu_bytes = 60e9;
  e.memory_capacity_bytes = 74e9;
  if (p.feasible) e.bottleneck = m::Bottleneck::compute;
  e.island_entries = s.cluster.island_entries;
  const double total = static_cast<double>(s.cluster.total_gpus());
  e.islands[0].batch_share = p.gpus * p.count / total;
  if (p.second) e.islands[1].batch_share = p.second->second / total;
  // The degrees are the model's own (the export reads them), from the islands' layouts.
  e.degrees = m::job_degrees(s, m::make_layout(s.cluster.islands[0], s.plan));
  for (int i = 0; i < s.cluster.island_entries; ++i) {
    const m::IslandLayout l = m::make_layout(s.cluster.islands[static_cast<std::size_t>(i)], s.plan);
    e.islands[static_cast<std::size_t>(i)].degrees = {l.dp, l.dp_shard, l.dp_replicate, e.degrees.microbatches};
  }
  f.index = p.index;
  f.labels = {p.gpu, std::to_string(p.tp)};
  return f;
}

results::RunInfo front_run_info(const std::string& scenario_name) {
  results::RunInfo info;
  info.scenario_text = "name: " + scenario_name + "\nmodel: {preset: llama3-70b}\nsearch:\n  axes:\n"
                       "    cluster.islands.0.gpu: [a100-sxm-80gb, h100-sxm, h200-sxm]\n    plan.tp: [2, 4, 8]\n";
  info.scenario_name = scenario_name;
  info.version = "0.1.0";
  info.method = "exhaustive";
  info.seed = 7;
  info.threads = 2;
  info.space_size = 4096;
  info.visited = 4096;
  info.feasible = 1500;
  info.rejected = {{"out_of_memory", 1800}, {"heads_not_divisible_by_tp", 796}};
  info.elapsed_s = 1.5;
  info.complete = true;
  info.objectives = {{&model::metric("total_cost_usd"), model::Direction::minimize},
                     {&model::metric("tokens_per_s"), model::Direction::maximize}};
  info.axes = {"cluster.islands.0.gpu", "plan.tp"};
  info.created = "2025-01-02T03:04:05Z";
  return info;
}

void write_front_file(const std::filesystem::path& path, const std::string& scenario_name,
                      const std::vector<results::PlanPoint>& points) {
  std::filesystem::create_directories(path.parent_path());
  results::write_front(path, front_run_info(scenario_name), points);
}

std::vector<results::PlanPoint> realistic_front(bool baseline) {
  static const char* kGpus[] = {"a100-sxm-80gb", "h100-sxm", "h200-sxm"};
  std::vector<results::PlanPoint> points;
  const int n = baseline ? 9 : 10;
  for (int i = 0; i < n; ++i) {
    PlanPoint p;
    p.gpu = kGpus[i % 3];
    p.count = 1 + i % 4;
    p.gpus = 64 << (i / 3);
    p.tp = 2 << (i % 3);
    p.pp = 2;
    p.global_batch = 1024;
    p.tokens_per_s = 2e5 * std::pow(1.45, i);
    p.cost_usd = 1.2e6 * std::exp(0.02 * i * i) * (baseline ? 1.08 : 1.0);
    p.index = static_cast<std::uint64_t>(100 + i);
    points.push_back(plan_point(p));
  }
  if (baseline) {   // an old plan on the baseline front that is not on the new one
    PlanPoint old;
    old.gpu = "a100-sxm-80gb";
    old.gpus = 256;
    old.tp = 4;
    old.pp = 8;
    old.tokens_per_s = 1.5e6;
    old.cost_usd = 2.3e6;
    old.index = 99;
    points.push_back(plan_point(old));
    std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) {
      return a.estimate.total_cost_usd < b.estimate.total_cost_usd;
    });
  }
  return points;
}

}  // namespace shardmeter::test
