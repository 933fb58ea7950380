#pragma once
// A front row as a deployment: the model, the degrees, batches and per-island ranks a training framework needs,
// read once from the file's columns (results/README.md; the degrees are the model's) so every export format agrees.
// Formats that cannot express a plan throw ExportError naming the format and the plan feature; nothing is written.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/parallel/pipeline_stages.hpp"
#include "model/spec/scenario.hpp"
#include "results/errors.hpp"
#include "results/front/row.hpp"

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

// The transformer as the row's model_* columns describe it.
struct DeployModel {
  std::int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn_hidden = 0, vocab = 0, seq_len = 0;
  std::string ffn_type, norm, position_embedding;   // "gelu" | "swiglu", "layernorm" | "rmsnorm", "learned" | ...
  bool bias = true, tied_embeddings = true;
  // Mixture of experts (docs/moe.md), from the row's model_experts ... model_moe_every columns; experts 0 = dense.
  std::int64_t experts = 0, top_k = 0, shared_experts = 0, expert_ffn_hidden = 0, shared_expert_ffn_hidden = 0;
  std::int64_t dense_layers = 0, moe_every = 1;
  // Keys no column holds, from the row's scenario rebuilt from the file (`extras_known`); defaults otherwise.
  bool extras_known = false;
  std::string router = "softmax";         // "softmax" | "sigmoid"
  double capacity_factor = 0;             // 0 = dropless
  std::int64_t mtp_layers = 0;
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0, rope_head_dim = 0, v_head_dim = 0;   // MLA when kv_lora_rank > 0
  double activation_clamp = 0;            // model.expert_activation_clamp (gpt-oss: 7); 0 = none
  double yarn_factor = 0;                 // model.yarn_factor (gpt-oss: 32); 0 = plain RoPE
  std::int64_t attention_window = 0;      // model.attention_window (gpt-oss: 128); 0 = full causal attention
  std::int64_t full_attention_every = 0;  // model.full_attention_every (gpt-oss: 2)
  bool dropout = true;                    // model.dropout; true (the frameworks' default) when not rebuilt
  // model.rope_theta and model.norm_eps (no column holds them); 0 = not known (not rebuilt): the formats then write
  // nothing, except Megatron's --rotary-base for a llama3 flavor's dimensions (export_megatron.cpp).
  double rope_theta = 0, norm_eps = 0;

  bool moe() const { return experts > 0; }
  bool mla() const { return kv_lora_rank > 0; }
  // MoE blocks: after dense_layers, every moe_every-th block (model/kernels/moe_layers.hpp moe_layer_count).
  std::int64_t moe_layers() const;
};

// The plan re-costed without a feature a target framework does not run (model::evaluate of the rebuilt scenario
// with that feature off), for a format that writes the plan without it and says so in its header.
struct Recosted {
  bool feasible = false;
  std::string reject_reason;                  // model::enum_name of the reason, "" when feasible
  double tokens_per_s = 0, effective_tokens_per_s = 0, total_cost_usd = 0, wall_clock_s = 0, mfu = 0;
  double memory_per_gpu_bytes = 0;
};

struct DeployPlan {
  std::size_t row = 0;                        // row index in the front (row_number(row) is what outputs show)
  std::uint64_t index = 0;
  DeployModel model;
  std::int64_t global_batch = 0, micro_batch = 0;
  std::string precision;
  double training_tokens = 0;                 // training.tokens: loss-equivalent tokens (what a synchronous run needs)
  // The tokens the plan trains and is costed for: training_tokens / token_efficiency (DiLoCo trains more to reach
  // the same loss, docs/model.md §10.3; synchronous plans: the same). Every format writes its length from it.
  double trained_tokens = 0;
  // training.warmup_tokens of the rebuilt scenario (no column holds it); warmup_known false when not rebuilt, and
  // the formats then write no warm-up (the framework's default applies; the header says so).
  double warmup_tokens = 0;
  bool warmup_known = false;
  std::int64_t tp = 1, pp = 1, cp = 1, interleave = 1;
  // The pipeline split (plan.pp_first/last_stage_layers, plan.pp_embedding/head_layers; docs/model.md §5.4).
  std::int64_t pp_first_stage_layers = 0, pp_last_stage_layers = 0, pp_embedding_layers = 0, pp_head_layers = 0;
  bool sequence_parallel = false;
  std::string sharding, recompute, attention, sync;
  std::int64_t shard_group = 0;
  bool overlap_grad_reduce = true, overlap_param_gather = true, tp_comm_overlap = false;
  bool tp_dgrad_overlap = false;              // backward TP collective beside the wgrad GEMM (docs/model.md §4.4)
  bool reshard_after_forward = true;          // fsdp/hsdp: gathered weights freed after forward (docs/model.md §6.3)
  std::int64_t recompute_layers = 0;          // recompute full: blocks per stage checkpointed (0 = all; §7.5)
  bool pp_across_islands = false;
  std::int64_t ep = 1, etp = 1;               // expert-parallel and expert tensor-parallel degrees (columns ep, etp)
  std::string ep_dispatcher = "alltoall";     // "alltoall" | "deepep"
  bool ep_overlap = false;
  bool fp8_params = false;                    // training.fp8_params (rebuilt scenario; no column): fp8 weight gathers
  // With fp8_params: the rebuilt scenario re-costed with training.fp8_params false (the torchtitan-py target has no
  // fp8 all-gather, export_torchtitan_py.cpp); nullopt otherwise.
  std::optional<Recosted> without_fp8_gathers;
  std::string moe_recompute = "none";         // "none" | "activation" | "layer" (rebuilt scenario; no column)
  // plan.pipeline_schedule and plan.fp8_activation_cache of the rebuilt scenario (no column; docs/model.md §5.8,
  // §7.12): no export target implements DualPipe or DeepSeek-V3's E5M6 / fp8 activation cache, so they refuse both.
  std::string pipeline_schedule = "1f1b";
  bool fp8_activation_cache = false;
  // plan.activation_offload_layers and plan.optimizer_offload_fraction of the rebuilt scenario (no column;
  // docs/model.md §7.15, §7.16): written where the framework has them, refused where it does not.
  std::int64_t activation_offload_layers = 0;
  double optimizer_offload_fraction = 0;
  // plan.recompute_modules of the rebuilt scenario under recompute selective, Megatron's names in declaration order
  // (docs/model.md §7.11); empty when not rebuilt or not selective (then core_attn plus moe_recompute's module).
  std::string recompute_modules;
  std::string stack;                          // plan.stack of the rebuilt scenario; empty when it was not rebuilt
  std::int64_t diloco_inner_steps = 0, diloco_outer_bits = 32, diloco_fragments = 1, diloco_overlap_steps = 0;
  std::int64_t total_gpus = 0;
  std::vector<DeployIsland> islands;          // every island, entry by entry, copy by copy

  // The job. Synchronous: one job over every GPU. DiLoCo: one job per island, each on global_batch / islands.
  std::int64_t model_parallel = 1;            // tp * pp * cp
  std::int64_t data_parallel = 1;             // column data_parallel: synchronous, every GPU's; DiLoCo, one island's
  std::int64_t dp_shard = 1, dp_replicate = 1;   // columns dp_shard, dp_replicate (hsdp: groups of shard_group GPUs)
  std::int64_t batch_per_job = 0;             // sequences per optimizer step of one job
  std::int64_t grad_accum = 1;                // column microbatches: batch_per_job / (micro_batch * data_parallel)
  bool identical_islands = true;              // same GPU type, size and node size everywhere

  bool diloco() const { return sync == "diloco"; }
  // Optimizer steps that train trained_tokens: each step trains global_batch x seq_len tokens over the whole job
  // (DiLoCo: over every island together), rounded up to a whole step.
  std::int64_t train_steps() const;
  // Optimizer steps of learning-rate warm-up: warmup_tokens over the tokens of one step, rounded up, at most
  // train_steps() (what every format writes as its warm-up).
  std::int64_t warmup_steps() const;
  double tokens_per_step() const { return static_cast<double>(global_batch) * static_cast<double>(model.seq_len); }
  bool multi_island() const { return islands.size() > 1; }
  // GPUs of one job: every GPU (synchronous) or one island's (DiLoCo).
  std::int64_t job_gpus() const { return diloco() && !islands.empty() ? islands.front().gpus : total_gpus; }
  // Expert data-parallel degree: the GPUs of a pipeline stage (tp x cp x dp) over ETP x EP (parallel folding).
  std::int64_t expert_data_parallel() const { return tp * cp * data_parallel / std::max<std::int64_t>(1, ep * etp); }
  // Transformer layers per pipeline stage of the fullest stage, as the model charges it (docs/model.md §5.4).
  std::int64_t fullest_stage_layers() const { return stages().fullest(); }
  // With recompute full and recompute_layers N > 0: the blocks checkpointed whole on the fullest stage, min(N, its
  // blocks) (docs/model.md §7.5 counts N per physical stage).
  std::int64_t recomputed_stage_layers() const { return std::min(recompute_layers, fullest_stage_layers()); }
  // The recompute_modules a format without Megatron's module list cannot express: any of mlp, layernorm,
  // mla_up_proj, shared_experts, or a list without core_attn; "" when there is none.
  std::string recompute_modules_beyond_megatron_default() const;
  // Blocks per pipeline rank as the model costs them (model/parallel/pipeline_stages.hpp, docs/model.md §5.4).
  model::StageLayers stages() const;
  // Blocks on rank r (0 <= r < pp).
  std::int64_t rank_layers(std::int64_t r) const;
  bool explicit_stages() const { return pp_first_stage_layers > 0 || pp_last_stage_layers > 0; }
};

// Reads the row. Columns that files before schema_version 3 lack (model dimensions, overlap flags, DiLoCo fragments)
// come from `rebuilt`, the row's scenario rebuilt from the file, when given; so do the keys no column holds (the MoE
// router, capacity factor, MTP depth, MLA ranks and plan.moe_recompute: DeployModel::extras_known). Files written
// before the MoE columns existed hold dense plans: missing MoE columns read as no experts and EP 1. Throws ResultsError for a column that
// is missing with no scenario to take it from (search again), and ExportError("plan", ...) for a row that cannot be
// deployed: not feasible, or without a data-parallel degree.
DeployPlan make_deploy_plan(const Row& row, std::size_t row_index, const model::Scenario* rebuilt = nullptr);

}  // namespace shardmeter::results
