#include "results/export/deploy_plan.hpp"

#include <cmath>

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "model/spec/enum_names.hpp"
#include "model/job/evaluate.hpp"
#include "results/front/front_picks.hpp"
#include "results/front/plan_labels.hpp"

namespace shardmeter::results {

ExportError::ExportError(std::string format, std::string feature)
    : ResultsError(format + " cannot express this plan: " + feature), format_(std::move(format)),
      feature_(std::move(feature)) {}

namespace {

// A column of the row read as T (a located error if the row lacks it).
template <class T>
T typed_column(const Row& r, std::string_view column) {
  if constexpr (std::is_same_v<T, bool>) return flag(r, column);
  else if constexpr (std::is_same_v<T, std::string>) return text(r, column);
  else return integer(r, column);
}

// A column of the row; for a file written before the column existed, what `missing()` gives (no value: the
// located error of a missing column). The three readers below differ only in that fallback.
template <class T, class F>
T read_column(const Row& r, std::string_view column, F missing) {
  if (r.count(column) == 0) {
    if (std::optional<T> v = missing()) return *std::move(v);
  }
  return typed_column<T>(r, column);
}

// ... falling back to the rebuilt scenario's field.
template <class T, class F>
T column_or(const Row& r, std::string_view column, const model::Scenario* rebuilt, F from_scenario) {
  return read_column<T>(r, column, [&]() -> std::optional<T> {
    if (rebuilt == nullptr) return std::nullopt;
    return from_scenario(*rebuilt);
  });
}

// ... a column added with the MoE keys: files written before them hold dense plans, read as `dense`.
template <class T>
T moe_column(const Row& r, std::string_view column, T dense) {
  return read_column<T>(r, column, [&] { return std::optional<T>(std::move(dense)); });
}

// ... a pipeline-split column: the rebuilt scenario's field, or 0 (the default) without one.
std::int64_t split_column(const Row& r, std::string_view column, const model::Scenario* rebuilt, int model::PlanSpec::*field) {
  return read_column<std::int64_t>(r, column, [&] { return std::optional<std::int64_t>(rebuilt != nullptr ? rebuilt->plan.*field : 0); });
}

// The model's view of the plan's pipeline split.
void split_of(const DeployPlan& p, model::ModelSpec& m, model::PlanSpec& plan) {
  m.layers = static_cast<int>(p.model.layers);
  plan.pp = static_cast<int>(p.pp);
  plan.interleave = static_cast<int>(p.interleave);
  plan.pp_first_stage_layers = static_cast<int>(p.pp_first_stage_layers);
  plan.pp_last_stage_layers = static_cast<int>(p.pp_last_stage_layers);
  plan.pp_embedding_layers = static_cast<int>(p.pp_embedding_layers);
  plan.pp_head_layers = static_cast<int>(p.pp_head_layers);
}

}  // namespace

std::int64_t DeployPlan::train_steps() const {
  const double per_step = tokens_per_step();
  return per_step > 0 ? static_cast<std::int64_t>(std::ceil(trained_tokens / per_step)) : 0;
}

std::int64_t DeployPlan::warmup_steps() const {
  const double per_step = tokens_per_step();
  if (per_step <= 0 || warmup_tokens <= 0) return 0;
  return std::min(train_steps(), static_cast<std::int64_t>(std::ceil(warmup_tokens / per_step)));
}

std::int64_t DeployModel::moe_layers() const {
  if (!moe() || layers <= dense_layers) return 0;
  const std::int64_t every = moe_every > 0 ? moe_every : 1;
  return (layers - dense_layers + every - 1) / every;
}

model::StageLayers DeployPlan::stages() const {
  model::ModelSpec m;
  model::PlanSpec plan;
  split_of(*this, m, plan);
  return model::stage_layers(m, plan);
}

std::int64_t DeployPlan::rank_layers(std::int64_t r) const {
  model::ModelSpec m;
  model::PlanSpec plan;
  split_of(*this, m, plan);
  return model::rank_layers(m, plan, static_cast<int>(r));
}

DeployPlan make_deploy_plan(const Row& r, std::size_t row_index, const model::Scenario* rebuilt) {
  using model::enum_name;
  DeployPlan p;
  p.row = row_index;
  p.index = static_cast<std::uint64_t>(integer(r, "index"));
  DeployModel& m = p.model;
  const auto* s = rebuilt;
  m.layers = integer(r, "model_layers");
  m.hidden = integer(r, "model_hidden");
  m.seq_len = integer(r, "model_seq_len");
  m.heads = column_or<std::int64_t>(r, "model_heads", s, [](const model::Scenario& x) { return x.model.heads; });
  m.kv_heads = column_or<std::int64_t>(r, "model_kv_heads", s, [](const model::Scenario& x) { return x.model.kv_heads; });
  m.head_dim = column_or<std::int64_t>(r, "model_head_dim", s, [](const model::Scenario& x) { return x.model.head_dim; });
  m.ffn_hidden = column_or<std::int64_t>(r, "model_ffn_hidden", s, [](const model::Scenario& x) { return x.model.ffn_hidden; });
  m.vocab = column_or<std::int64_t>(r, "model_vocab", s, [](const model::Scenario& x) { return x.model.vocab; });
  m.ffn_type = column_or<std::string>(r, "model_ffn_type", s,
                                      [](const model::Scenario& x) { return std::string(enum_name(x.model.ffn_type)); });
  m.norm = column_or<std::string>(r, "model_norm", s,
                                  [](const model::Scenario& x) { return std::string(enum_name(x.model.norm)); });
  m.position_embedding = column_or<std::string>(r, "model_position_embedding", s, [](const model::Scenario& x) {
    return std::string(enum_name(x.model.position_embedding));
  });
  m.bias = column_or<bool>(r, "model_bias", s, [](const model::Scenario& x) { return x.model.bias; });
  m.tied_embeddings =
      column_or<bool>(r, "model_tied_embeddings", s, [](const model::Scenario& x) { return x.model.tied_embeddings; });
  m.experts = moe_column<std::int64_t>(r, "model_experts", 0);
  if (m.moe()) {
    m.top_k = integer(r, "model_top_k");
    m.shared_experts = integer(r, "model_shared_experts");
    m.expert_ffn_hidden = integer(r, "model_expert_ffn_hidden");
    m.shared_expert_ffn_hidden = integer(r, "model_shared_expert_ffn_hidden");
    m.dense_layers = integer(r, "model_dense_layers");
    m.moe_every = integer(r, "model_moe_every");
  }
  // The rebuilt scenario must be the row's model (the catalog may have changed since the search).
  if (s != nullptr && s->model.moe.experts == m.experts && s->model.layers == m.layers && s->model.hidden == m.hidden) {
    m.extras_known = true;
    m.router = std::string(enum_name(s->model.moe.router));
    m.capacity_factor = s->model.moe.capacity_factor;
    m.mtp_layers = s->model.mtp_layers;
    m.q_lora_rank = s->model.mla.q_lora_rank;
    m.kv_lora_rank = s->model.mla.kv_lora_rank;
    m.rope_head_dim = s->model.mla.rope_head_dim;
    m.v_head_dim = s->model.mla.v_head_dim > 0 ? s->model.mla.v_head_dim : s->model.head_dim;
    m.activation_clamp = s->model.moe.activation_clamp;
    m.yarn_factor = s->model.yarn_factor;
    m.attention_window = s->model.attention_window;
    m.full_attention_every = s->model.full_attention_every;
    m.dropout = s->model.dropout;
    m.rope_theta = s->model.rope_theta;
    m.norm_eps = s->model.norm_eps;
    p.moe_recompute = std::string(enum_name(s->plan.moe_recompute));
    p.fp8_params = s->training.fp8_params;
    if (p.fp8_params) {
      model::Scenario off = *s;
      off.training.fp8_params = false;
      const model::Estimate e = model::evaluate(off);
      Recosted r;
      r.feasible = e.feasible;
      r.reject_reason = e.feasible ? "" : std::string(enum_name(e.reject_reason));
      r.tokens_per_s = e.tokens_per_s;
      r.effective_tokens_per_s = e.effective_tokens_per_s;
      r.total_cost_usd = e.total_cost_usd;
      r.wall_clock_s = e.wall_clock_s;
      r.mfu = e.mfu;
      r.memory_per_gpu_bytes = e.memory_per_gpu_bytes;
      p.without_fp8_gathers = r;
    }
  }
  // The stack column (files since the stack was stated everywhere); older files take it from the rebuilt scenario.
  if (s != nullptr) {
    p.pipeline_schedule = std::string(enum_name(s->plan.pipeline_schedule));
    p.fp8_activation_cache = s->plan.fp8_activation_cache;
    p.activation_offload_layers = s->plan.activation_offload_layers;
    p.optimizer_offload_fraction = s->plan.optimizer_offload_fraction;
  }
  if (r.find("stack") != r.end()) p.stack = text(r, "stack");
  else if (s != nullptr) p.stack = std::string(enum_name(s->plan.stack));
  if (s != nullptr && s->plan.recompute == model::Recompute::selective) {
    // moe_act / moe as plan.moe_recompute says (the model reads it; a search axis may have set it).
    const auto bit = [](model::RecomputeModule x) { return 1u << static_cast<unsigned>(x); };
    unsigned modules = s->plan.recompute_modules & ~(bit(model::RecomputeModule::moe_act) | bit(model::RecomputeModule::moe));
    if (s->plan.moe_recompute == model::MoeRecompute::activation) modules |= bit(model::RecomputeModule::moe_act);
    if (s->plan.moe_recompute == model::MoeRecompute::layer) modules |= bit(model::RecomputeModule::moe);
    for (const auto& v : model::enum_names<model::RecomputeModule>())
      if ((modules >> static_cast<unsigned>(v.value)) & 1u) {
        if (!p.recompute_modules.empty()) p.recompute_modules += ' ';
        p.recompute_modules += v.name;
      }
  }
  p.ep = moe_column<std::int64_t>(r, "ep", 1);
  p.etp = moe_column<std::int64_t>(r, "etp", 1);
  p.ep_dispatcher = moe_column<std::string>(r, "ep_dispatcher", "alltoall");
  p.ep_overlap = moe_column<bool>(r, "ep_overlap", false);
  p.global_batch = integer(r, "global_batch");
  p.micro_batch = integer(r, "micro_batch");
  p.precision = text(r, "precision");
  p.training_tokens = number(r, "training_tokens");
  // token_efficiency is 1 for synchronous plans; files without the column predate DiLoCo's extra tokens.
  const double efficiency = r.find("token_efficiency") != r.end() ? number(r, "token_efficiency") : 1.0;
  p.trained_tokens = efficiency > 0 ? p.training_tokens / efficiency : p.training_tokens;
  if (s != nullptr) {
    p.warmup_tokens = s->training.warmup_tokens;
    p.warmup_known = true;
  }
  p.tp = integer(r, "tp");
  p.pp = integer(r, "pp");
  p.cp = integer(r, "cp");
  p.interleave = integer(r, "interleave");
  p.pp_first_stage_layers = split_column(r, "pp_first_stage_layers", s, &model::PlanSpec::pp_first_stage_layers);
  p.pp_last_stage_layers = split_column(r, "pp_last_stage_layers", s, &model::PlanSpec::pp_last_stage_layers);
  p.pp_embedding_layers = split_column(r, "pp_embedding_layers", s, &model::PlanSpec::pp_embedding_layers);
  p.pp_head_layers = split_column(r, "pp_head_layers", s, &model::PlanSpec::pp_head_layers);
  p.sequence_parallel = flag(r, "sequence_parallel");
  p.sharding = text(r, "sharding");
  p.shard_group = integer(r, "shard_group");
  p.recompute = text(r, "recompute");
  p.attention = text(r, "attention");
  p.overlap_grad_reduce =
      column_or<bool>(r, "overlap_grad_reduce", s, [](const model::Scenario& x) { return x.plan.overlap_grad_reduce; });
  p.overlap_param_gather =
      column_or<bool>(r, "overlap_param_gather", s, [](const model::Scenario& x) { return x.plan.overlap_param_gather; });
  p.tp_comm_overlap =
      column_or<bool>(r, "tp_comm_overlap", s, [](const model::Scenario& x) { return x.plan.tp_comm_overlap; });
  p.tp_dgrad_overlap =
      column_or<bool>(r, "tp_dgrad_overlap", s, [](const model::Scenario& x) { return x.plan.tp_dgrad_overlap; });
  p.recompute_layers = column_or<std::int64_t>(r, "recompute_layers", s,
                                               [](const model::Scenario& x) { return x.plan.recompute_layers; });
  p.reshard_after_forward = column_or<bool>(r, "reshard_after_forward", s,
                                            [](const model::Scenario& x) { return x.plan.reshard_after_forward; });
  p.sync = text(r, "sync");
  p.pp_across_islands = flag(r, "pp_across_islands");
  p.diloco_inner_steps = integer(r, "diloco_inner_steps");
  p.diloco_outer_bits = integer(r, "diloco_outer_bits");
  p.diloco_fragments =
      column_or<std::int64_t>(r, "diloco_fragments", s, [](const model::Scenario& x) { return x.plan.diloco.fragments; });
  p.diloco_overlap_steps = column_or<std::int64_t>(r, "diloco_overlap_steps", s, [](const model::Scenario& x) {
    return x.plan.diloco.overlap_steps;
  });
  p.total_gpus = integer(r, "total_gpus");
  p.model_parallel = p.tp * p.pp * p.cp;
  // The degrees as the model computed them [model/job/evaluate.cpp, model/parallel/layout.cpp]: one data-parallel mesh over every
  // GPU (synchronous) or per island (DiLoCo: each island trains global_batch / islands with its own replicas).
  p.data_parallel = integer(r, "data_parallel");
  p.dp_shard = integer(r, "dp_shard");
  p.dp_replicate = integer(r, "dp_replicate");
  p.grad_accum = integer(r, "microbatches");
  if (p.model_parallel <= 0 || p.data_parallel <= 0 || p.micro_batch <= 0)
    throw ExportError("plan", fmt::format("row {} has tp x pp x cp = {} and {} data-parallel replicas on {} GPUs",
                                          row_number(row_index), p.model_parallel, p.data_parallel, p.total_gpus));

  const std::vector<IslandEntryView> entries = island_entries(r);
  std::int64_t rank = 0, node = 0;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const IslandEntryView& v = entries[e];
    const double share = number(r, fmt::format("island{}_batch_share", e));
    const std::int64_t replicas = integer(r, fmt::format("island{}_data_parallel", e));
    for (std::int64_t k = 0; k < v.count; ++k) {
      DeployIsland d;
      d.entry = static_cast<int>(e);
      d.copy = static_cast<int>(k);
      d.name = v.name;
      d.gpu = v.gpu;
      d.gpus = v.gpus;
      d.nodes = v.nodes;
      d.gpus_per_node = v.gpus_per_node;
      d.spot = v.spot;
      d.price_usd_per_gpu_hour = v.price_usd_per_gpu_hour;
      d.batch_share = share;  // islandN_batch_share is already one island's share (model/spec/estimate.hpp)
      d.data_parallel = p.pp_across_islands ? 0 : replicas;  // a pipeline across islands has no whole replica here
      if (p.sync == "diloco") {
        rank = 0;
        node = 0;
      }
      d.first_rank = rank;
      d.last_rank = rank + v.gpus - 1;
      d.first_node = node;
      rank += v.gpus;
      node += v.nodes;
      p.islands.push_back(std::move(d));
    }
  }
  for (const DeployIsland& d : p.islands)
    if (d.gpu != p.islands.front().gpu || d.gpus != p.islands.front().gpus ||
        d.gpus_per_node != p.islands.front().gpus_per_node)
      p.identical_islands = false;

  p.batch_per_job = p.diloco() ? p.global_batch / std::max<std::int64_t>(1, static_cast<std::int64_t>(p.islands.size()))
                               : p.global_batch;
  return p;
}

}  // namespace shardmeter::results

namespace shardmeter::results {

std::string DeployPlan::recompute_modules_beyond_megatron_default() const {
  if (recompute_modules.empty()) return "";
  std::string beyond;
  bool core_attn = false;
  std::size_t at = 0;
  while (at < recompute_modules.size()) {
    const std::size_t end = std::min(recompute_modules.find(' ', at), recompute_modules.size());
    const std::string word = recompute_modules.substr(at, end - at);
    at = end + 1;
    if (word == "core_attn") core_attn = true;
    else if (word != "moe_act" && word != "moe") {
      if (!beyond.empty()) beyond += ' ';
      beyond += word;
    }
  }
  if (!core_attn) {
    if (!beyond.empty()) beyond += ' ';
    beyond += "(no core_attn)";
  }
  return beyond;
}

}  // namespace shardmeter::results
