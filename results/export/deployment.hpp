#pragma once
// A decoded front row (results/front/row_decoder.hpp) as a deployment: the typed plan every export format writes,
// plus what the plan implies for launching it and reads from no column: the islands' rank ranges, the job's batch,
// the optimizer steps, the pipeline split per rank. Nothing here re-reads the row: the plan is record.scenario.
// Formats that cannot express a plan throw ExportError naming the format and the plan feature; nothing is written.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/parallel/pipeline_stages.hpp"
#include "model/spec/estimate.hpp"
#include "model/spec/scenario.hpp"
#include "results/errors.hpp"
#include "results/front/row_decoder.hpp"

namespace shardmeter::results {

// "<format> cannot express this plan: <feature>".
class ExportError : public ResultsError {
public:
  ExportError(std::string format, std::string feature);
  const std::string& format() const { return format_; }
  const std::string& feature() const { return feature_; }

private:
  std::string format_, feature_;
};

// One island (one copy of an island entry) of the job.
struct DeployIsland {
  int entry = 0;                  // island entry in the scenario
  int copy = 0;                   // 0 .. count-1 for entries with count > 1
  std::string name, gpu;
  std::int64_t gpus = 0, nodes = 0, gpus_per_node = 0;
  bool spot = false;
  double price_usd_per_gpu_hour = 0;
  std::int64_t first_rank = 0;    // synchronous: global ranks; DiLoCo: ranks of the island's own job (from 0)
  std::int64_t last_rank = 0;
  std::int64_t first_node = 0;    // node ranks, numbered like the ranks
  std::int64_t data_parallel = 0; // model replicas on this island (islandN_data_parallel); 0 when the pipeline spans islands
  double batch_share = 0;         // fraction of the global batch this island's entry trains (estimate)
};

struct Deployment {
  PlanRecord record;                          // the decoded row: record.scenario is the plan
  std::vector<DeployIsland> islands;          // every island, entry by entry, copy by copy
  bool identical_islands = true;              // same GPU type, size and node size everywhere
  std::int64_t batch_per_job = 0;             // sequences per optimizer step of one job
  // The tokens the plan trains and is costed for: training.tokens / token_efficiency (DiLoCo trains more to reach
  // the same loss, docs/model.md §10.3; synchronous plans: the same). Every format writes its length from it.
  double trained_tokens = 0;
  // With training.fp8_params (rebuilt scenario): the plan re-costed with it false (model::evaluate of the scenario
  // with the key off), for the torchtitan-py target, which has no fp8 all-gather and writes the plan without it
  // and says so in its header (export_torchtitan_py.cpp); nullopt otherwise.
  std::optional<model::Estimate> without_fp8_gathers;

  const model::Scenario& scenario() const { return record.scenario; }
  const model::PlanSpec& plan() const { return record.scenario.plan; }
  const model::ModelSpec& model() const { return record.scenario.model; }
  const model::TrainingSpec& training() const { return record.scenario.training; }
  // Column data_parallel ... microbatches: synchronous, every GPU's mesh; DiLoCo, one island's.
  const model::DataParallelDegrees& degrees() const { return record.estimate.degrees; }
  double metric(const model::Metric& m) const { return record.metric(m); }

  bool diloco() const { return record.diloco(); }
  bool moe() const { return record.moe(); }
  bool mla() const { return model().mla.kv_lora_rank > 0; }
  // The keys no column holds (router, capacity factor, MTP, MLA ranks, RoPE base, warm-up, moe_recompute, ...)
  // are the row's: its scenario was rebuilt from the file.
  bool extras_known() const { return record.rebuilt; }
  // model.rope_theta / model.norm_eps when known (rebuilt), else 0: the formats then write nothing.
  double rope_theta() const { return record.rebuilt ? model().rope_theta : 0; }
  double norm_eps() const { return record.rebuilt ? model().norm_eps : 0; }
  // The value head dimension: mla.v_head_dim, or head_dim when the scenario leaves it 0.
  std::int64_t v_head_dim() const { return model().mla.v_head_dim > 0 ? model().mla.v_head_dim : model().head_dim; }
  std::int64_t model_parallel() const { return std::int64_t{plan().tp} * plan().pp * plan().cp; }
  std::int64_t total_gpus() const { return scenario().cluster.total_gpus(); }
  std::int64_t grad_accum() const { return degrees().microbatches; }
  // MoE blocks: after dense_layers, every moe_every-th block (model/kernels/moe_layers.hpp moe_layer_count).
  std::int64_t moe_layers() const;
  // Optimizer steps that train trained_tokens: each step trains global_batch x seq_len tokens over the whole job
  // (DiLoCo: over every island together), rounded up to a whole step.
  std::int64_t train_steps() const;
  // Optimizer steps of learning-rate warm-up: warmup_tokens over the tokens of one step, rounded up, at most
  // train_steps() (what every format writes as its warm-up); 0 when not known (extras_known() false).
  std::int64_t warmup_steps() const;
  double tokens_per_step() const {
    return static_cast<double>(training().global_batch) * static_cast<double>(model().seq_len);
  }
  bool multi_island() const { return islands.size() > 1; }
  // GPUs of one job: every GPU (synchronous) or one island's (DiLoCo).
  std::int64_t job_gpus() const { return diloco() && !islands.empty() ? islands.front().gpus : total_gpus(); }
  // Expert data-parallel degree: the GPUs of a pipeline stage (tp x cp x dp) over ETP x EP (parallel folding).
  std::int64_t expert_data_parallel() const {
    return std::int64_t{plan().tp} * plan().cp * degrees().data_parallel /
           std::max<std::int64_t>(1, std::int64_t{plan().ep} * plan().etp);
  }
  // Transformer layers per pipeline stage of the fullest stage, as the model charges it (docs/model.md §5.4).
  std::int64_t fullest_stage_layers() const { return stages().fullest(); }
  // With recompute full and recompute_layers N > 0: the blocks checkpointed whole on the fullest stage, min(N, its
  // blocks) (docs/model.md §7.5 counts N per physical stage).
  std::int64_t recomputed_stage_layers() const {
    return std::min<std::int64_t>(plan().recompute_layers, fullest_stage_layers());
  }
  // plan.recompute_modules under recompute selective with moe_act / moe as plan.moe_recompute says (the model reads
  // it), as a bit set of model::RecomputeModule; 0 when not rebuilt or not selective.
  unsigned recompute_modules() const;
  // Megatron's names of recompute_modules(), in declaration order, space-separated ("" for none).
  std::string recompute_modules_text() const;
  // The recompute_modules a format without Megatron's module list cannot express: any of mlp, layernorm,
  // mla_up_proj, shared_experts, or a list without core_attn; "" when there is none.
  std::string recompute_modules_beyond_megatron_default() const;
  // Blocks per pipeline rank as the model costs them (model/parallel/pipeline_stages.hpp, docs/model.md §5.4).
  model::StageLayers stages() const { return model::stage_layers(model(), plan()); }
  // Blocks on rank r (0 <= r < pp).
  std::int64_t rank_layers(std::int64_t r) const { return model::rank_layers(model(), plan(), static_cast<int>(r)); }
  bool explicit_stages() const { return plan().pp_first_stage_layers > 0 || plan().pp_last_stage_layers > 0; }
};

// The deployment of a decoded row. Throws ResultsError naming a column the row lacks (files before
// schema_version 3 without a rebuilt scenario: search again), and ExportError("plan", ...) for a row that cannot
// be deployed: without a data-parallel degree.
Deployment make_deployment(PlanRecord record);

}  // namespace shardmeter::results
