#include "tests/results_test_points.hpp"

#include <algorithm>

namespace shardmeter::test {

namespace m = shardmeter::model;

std::vector<std::string> ScratchDir::files() const {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

results::PlanPoint make_point(int k, const std::string& gpu, int tp) {
  results::PlanPoint p;
  m::Scenario& s = p.scenario;
  s.model.layers = 32;
  s.model.hidden = 4096;
  s.model.seq_len = 8192;
  s.training.global_batch = 512;
  s.training.micro_batch = 1 + k;
  s.training.tokens = 1e12;
  s.plan.tp = tp;
  s.plan.pp = 2;
  s.plan.sharding = m::Sharding::zero1;
  s.plan.recompute = k == 2 ? m::Recompute::full : m::Recompute::selective;
  s.cluster.island_entries = 2;
  for (int i = 0; i < 2; ++i) {
    m::IslandSpec& isl = s.cluster.islands[static_cast<std::size_t>(i)];
    isl.name.assign(i == 0 ? "us-east" : "eu-west");
    isl.gpu.name.assign(gpu);
    isl.gpus = 64 * (k + 1);
    isl.gpus_per_node = 8;
    isl.price_usd_per_gpu_hour = 2.5 + i;
    isl.node_network.bytes_per_s = 400e9 / 8;  // 400 Gbit/s
  }
  m::Estimate& e = p.estimate;
  e.feasible = true;
  e.bottleneck = k == 1 ? m::Bottleneck::dp_comm : m::Bottleneck::compute;
  e.step_time_s = 10.0 - k;
  e.tokens_per_s = 1000.0 * (k + 1) + 0.125;
  e.mfu = 0.4 + 0.01 * k;
  e.memory_per_gpu_bytes = 60e9;
  e.memory_capacity_bytes = 74e9;
  e.gpus = 128 * (k + 1);
  e.total_cost_usd = 1.0e6 * (k + 1) + 0.5;
  e.wall_clock_s = 86400.0 * (30 - k);
  e.time.compute_s = 7.25;
  e.memory.weights_bytes = 16e9;
  e.island_entries = 2;
  for (int i = 0; i < 2; ++i) {
    m::IslandEstimate& ie = e.islands[static_cast<std::size_t>(i)];
    ie.tokens_per_s = e.tokens_per_s / 2;
    ie.utilization = 0.5 + 0.1 * i;
    ie.memory_per_gpu_bytes = 50e9 + 1e9 * i;
    ie.bottleneck = i == 1 ? m::Bottleneck::wan : m::Bottleneck::compute;
  }
  p.index = static_cast<std::uint64_t>(1000 + 7 * k);
  p.labels = {gpu, std::to_string(tp)};
  return p;
}

std::vector<results::PlanPoint> three_points() {
  return {make_point(0, "a100-sxm-80gb", 8), make_point(1, "h100-sxm", 4), make_point(2, "h200-sxm", 2)};
}

results::RunInfo make_run_info() {
  results::RunInfo info;
  info.scenario_text = "name: tiny\nmodel: {preset: llama3-8b}\n# a comment, with \"quotes\"\n";
  info.scenario_name = "tiny";
  info.version = "0.1.0";
  info.method = "exhaustive";
  info.seed = 42;
  info.threads = 2;
  info.space_size = 36;
  info.visited = 36;
  info.estimated = 16;   // the 20 heads_not_divisible_by_tp rejections never reach the model
  info.feasible = 12;
  info.rejected = {{"heads_not_divisible_by_tp", 20}, {"out_of_memory", 4}};
  info.elapsed_s = 0.25;
  info.complete = true;
  info.objectives = {{&model::metric("total_cost_usd"), model::Direction::minimize},
                     {&model::metric("tokens_per_s"), model::Direction::maximize}};
  info.axes = {"cluster.islands.0.gpu", "plan.tp"};
  info.created = "2024-05-01T12:00:00Z";
  info.uncalibrated_gpus = std::vector<std::string>{"h200-sxm"};   // made up: the status is the catalog's
  info.uncalibrated_gpu_stacks = std::vector<std::string>{"h200-sxm:megatron_te"};
  return info;
}

}  // namespace shardmeter::test
