#pragma once
// What the two torchtitan targets (TOML for v0.2.2, Python for main) share: the plans neither can express, the
// llama3 flavor that carries the model's dimensions, and the pipeline split.
//
// Pipeline split (torchtitan/distributed/pipeline_parallel.py, the same at v0.2.2 and main@b5bcd76): with
// pipeline_parallel_layers_per_stage = lps, torchtitan builds N = ceil((L + first_less + last_less) / lps) virtual
// stages, where first_less / last_less count the embedding and the output head as layers (default 1 each); N must
// be pp x stages per rank, 1 stage per rank for 1F1B, 2 or more for Interleaved1F1B; stage i then gets
// E // N (+1 for the first E % N stages) effective layers, E = L + first_less + last_less, the first and last
// minus their weights, virtual stage i on rank i % pp. This is the model's balanced split (model/parallel/pipeline_stages.hpp,
// docs/model.md §5.4), so the export writes first_less = plan.pp_embedding_layers, last_less = plan.pp_head_layers
// and the smallest lps with ceil(E / lps) = pp x v; explicit first / last stage counts (Megatron's) are refused.
// E.g. Llama-3-405B, 126 layers on pp 16 with both weights 1: lps 8, stages of 7, 8 x 14, 7 layers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/export/deployment.hpp"

namespace shardmeter::results {

struct TorchtitanStages {
  std::int64_t layers_per_stage = 0;
  std::int64_t first_less = 0, last_less = 0;   // pipeline_parallel_first/last_stage_less_layers
  std::int64_t stages_per_rank = 1;
  std::string_view schedule;                    // "1F1B" or "Interleaved1F1B"
};
// For pp > 1. Throws ExportError(format, ...) when torchtitan's split cannot give the plan's stages.
TorchtitanStages torchtitan_stages(std::string_view format, const Deployment& plan);

// torchtitan's llama3 flavor with the model's layers, hidden size and heads ("8B", "70B", "405B"); nullopt when
// none matches. Its dimensions are in torchtitan/models/llama3/__init__.py at both pinned commits.
std::optional<std::string_view> llama3_flavor(const Deployment& plan);

// A model torchtitan v0.2.2 registers, as [model] name and flavor: the llama3 flavors, and the MoE flavors whose
// layers, hidden size, heads, KV heads, experts, top-k, shared experts and expert width are the model's
// (models/qwen3/__init__.py:145-192 "30B-A3B", "235B-A22B"; models/deepseek_v3/__init__.py:130-156 "671B").
// Each flavor fixes its RoPE base and norm epsilon (TransformerModelArgs / Qwen3ModelArgs / DeepSeekV3ModelArgs
// rope_theta, norm_eps); v0.2.2's [model] section has no field that changes them (config/job_config.py Model: name,
// flavor, hf_assets_path, converters).
struct TorchtitanModel {
  std::string_view name, flavor;
  double rope_theta = 0, norm_eps = 0;
};
// "" when the model's model.rope_theta / model.norm_eps (known when the scenario was rebuilt) are the flavor's;
// else a sentence naming the flavor's values and the model's, for the export's header and notes.
std::string torchtitan_numerics_mismatch(const TorchtitanModel& flavor, const Deployment& plan);
std::optional<TorchtitanModel> torchtitan_v0_2_2_model(const Deployment& plan);

// The two targets' [training] and [parallelism] fields as one list, rendered by each writer in its syntax (TOML
// `name = value  # comment` for v0.2.2, keyword arguments `name=value,  # comment` for main): the names, values and
// comments are decided here once, per target where the versions differ (v0.2.2: local/global batch sizes and the
// pipeline micro-batch size; main: token counts, sequence parallelism as a switch, num_pp_microbatches, CUDA graphs).
enum class TorchtitanTarget { v0_2_2, main };
struct TorchtitanField {
  std::string name;
  std::string toml, python;   // the value as a TOML literal and as a Python literal
  std::string comment;        // "" for none
};
std::vector<TorchtitanField> torchtitan_training_fields(TorchtitanTarget target, const Deployment& plan);
// Throws ExportError (via torchtitan_stages) when the pipeline cannot be split.
std::vector<TorchtitanField> torchtitan_parallelism_fields(TorchtitanTarget target, std::string_view format,
                                                           const Deployment& plan);
// [lr_scheduler] warmup_steps (v0.2.2 config/job_config.py LRScheduler, default 200; main: Trainer.Config
// lr_scheduler, LRSchedulersContainer.Config warmup_steps): training.warmup_tokens as whole steps. nullopt when the
// scenario was not rebuilt (the warm-up is unknown).
std::optional<TorchtitanField> torchtitan_warmup_field(const Deployment& plan);
std::string toml_lines(const std::vector<TorchtitanField>& fields);                          // "name = value\n"
std::string python_arguments(const std::vector<TorchtitanField>& fields, std::string_view indent);  // "name=value,\n"

// Activation checkpointing as each target says it (docs/model.md §7.5). v0.2.2: [activation_checkpoint] mode
// "none" | "full" | "selective" with selective_ac_option "op" (the per-op policy = recompute op_selective) or a
// layer frequency k (every k-th block fully checkpointed = recompute full with recompute_layers = blocks / k;
// distributed/activation_checkpoint.py:127-183 at v0.2.2). main@b5bcd76: None, FullAC or SelectiveAC (per-op
// only). ShardMeter's selective (Megatron's core attention) recomputes nothing FlashAttention does not already
// recompute in its backward, so it is "none". Throws ExportError when the target cannot say it.
enum class TorchtitanAcMode { none, full, selective };
std::string_view torchtitan_ac_mode_name(TorchtitanAcMode mode);   // "none", "full", "selective" (v0.2.2's words)
struct TorchtitanCheckpointing {
  TorchtitanAcMode mode = TorchtitanAcMode::none;   // v0.2.2 [activation_checkpoint] mode; main: None, FullAC, SelectiveAC
  std::string option;    // v0.2.2 selective_ac_option ("" = not written)
  std::string comment;   // "" for none
};
TorchtitanCheckpointing torchtitan_checkpointing(TorchtitanTarget target, std::string_view format,
                                                 const Deployment& plan);

// Plans neither target expresses: a synchronous job across islands, ZeRO-1, fp16, a sequence length the TP / CP
// split cannot divide.
void check_torchtitan_plan(std::string_view format, const Deployment& plan);

}  // namespace shardmeter::results
