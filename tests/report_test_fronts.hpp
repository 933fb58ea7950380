#pragma once
// Hand-built fronts for the report, nightly and export tests: plans described by a few fields, with made-up
// metrics that are easy to check (not model output); only the data-parallel degrees are the model's.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/spec/enums.hpp"
#include "model/spec/moe_spec.hpp"
#include "results/front/plan_point.hpp"
#include "results/front/run_info.hpp"

namespace shardmeter::test {

struct PlanPoint {
  std::string gpu = "h100-sxm";
  int gpus = 512;                 // per island
  int count = 1;                  // identical islands of entry 0
  int gpus_per_node = 8;
  std::optional<std::pair<std::string, int>> second;   // a second island entry: GPU type and GPUs
  int tp = 8, pp = 4, cp = 1, interleave = 1;
  int pp_first_stage_layers = 0, pp_last_stage_layers = 0, pp_embedding_layers = 0, pp_head_layers = 0;
  bool sequence_parallel = true;
  model::Sharding sharding = model::Sharding::zero1;
  int shard_group = 0;
  model::Recompute recompute = model::Recompute::selective;
  int recompute_layers = 0;
  bool reshard_after_forward = true;
  bool tp_dgrad_overlap = false;
  bool tp_comm_overlap = false;
  model::SyncMode sync = model::SyncMode::synchronous;
  model::Precision precision = model::Precision::bf16;
  int inner_steps = 100, outer_bits = 32, fragments = 1, overlap_steps = 0;
  std::int64_t global_batch = 512;
  int micro_batch = 1;
  int layers = 80, hidden = 8192, seq_len = 8192;   // Llama-3-70B's shape unless a test says otherwise
  int heads = 64, kv_heads = 8, ffn_hidden = 28672;
  int head_dim = 0;                // 0: hidden / heads
  model::MoeSpec moe;              // experts 0 = dense
  model::MlaSpec mla;
  int mtp_layers = 0;
  int attention_window = 0, full_attention_every = 0;   // sliding-window attention (model keys of the same names)
  int ep = 1, etp = 1;
  model::EpDispatcher ep_dispatcher = model::EpDispatcher::alltoall;
  bool ep_overlap = false;
  model::MoeRecompute moe_recompute = model::MoeRecompute::none;
  unsigned recompute_modules = 1u;  // plan.recompute_modules (bit set; core_attn)
  bool feasible = true;
  double cost_usd = 1e6;
  double tokens_per_s = 1e6;
  std::uint64_t index = 0;
};

results::PlanPoint plan_point(const PlanPoint& p);
// Run info for a front of `scenario_name` with axes {cluster.islands.0.gpu, plan.tp} (the points' labels).
results::RunInfo front_run_info(const std::string& scenario_name);
// Writes `points` as the front of `scenario_name` (front_run_info) to `path`, creating its folders.
void write_front_file(const std::filesystem::path& path, const std::string& scenario_name,
                      const std::vector<results::PlanPoint>& points);

// Ten plans on three GPU types and one to four islands; throughput spans more than a decade (2e5 to 5.7e6
// tokens/s), cost grows slowly, then fast (a clear knee). `baseline`: the same plans 8 % dearer, without the
// fastest one and with an old plan that has since left the front.
std::vector<results::PlanPoint> realistic_front(bool baseline = false);

}  // namespace shardmeter::test
