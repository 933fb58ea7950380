// plan-json: every field of the plan, the model, the predicted metrics (with units), the calibration status of its
// GPU types and the islands with their rank ranges. ShardMeter's own format, versioned by "schema_version"
// (docs/export.md): 2 numbers rows from 1 and adds "model" dimensions, "header" and "uncalibrated_gpus".
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "model/spec/enum_names.hpp"
#include "model/spec/metrics.hpp"
#include "results/markup.hpp"
#include "results/export/export_formats.hpp"
#include "results/front/calibration_marks.hpp"
#include "results/front/front_picks.hpp"

namespace shardmeter::results {

namespace {

// An enum as its one spelling (model/spec/enum_names.hpp); json would otherwise write its number.
template <class E>
std::string name(E value) {
  return std::string(model::enum_name(value));
}

nlohmann::ordered_json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

Exported export_plan_json(const Deployment& p, const ExportSource& source) {
  using json = nlohmann::ordered_json;   // keys in the order written, so the file reads top-down
  const RunInfo& info = *source.info;
  json j;
  j["format"] = "shardmeter-plan";
  j["schema_version"] = 2;
  j["header"] = export_header_lines(ExportFormat::plan_json, p, source);
  j["source"] = {{"front", source.front_path}, {"row", row_number(p.record.row)}, {"index", p.record.index},
                 {"pick", source.pick},        {"scenario_name", info.scenario_name},
                 {"shardmeter_version", info.version}, {"created", info.created}};
  const model::ModelSpec& m = p.model();
  j["model"] = {{"layers", m.layers},         {"hidden", m.hidden},
                {"heads", m.heads},           {"kv_heads", m.kv_heads},
                {"head_dim", m.head_dim},     {"ffn_hidden", m.ffn_hidden},
                {"ffn_type", name(m.ffn_type)},     {"vocab", m.vocab},
                {"seq_len", m.seq_len},       {"norm", name(m.norm)},
                {"position_embedding", name(m.position_embedding)},
                {"bias", m.bias},             {"tied_embeddings", m.tied_embeddings}};
  if (p.moe()) {
    json moe = {{"experts", m.moe.experts},
                {"top_k", m.moe.top_k},
                {"shared_experts", m.moe.shared_experts},
                {"expert_ffn_hidden", m.moe.expert_ffn_hidden},
                {"shared_expert_ffn_hidden", m.moe.shared_expert_ffn_hidden},
                {"dense_layers", m.moe.dense_layers},
                {"moe_every", m.moe.moe_every},
                {"moe_layers", p.moe_layers()}};
    // Keys no column holds: from the rebuilt scenario, null when it could not be rebuilt.
    moe["router"] = p.extras_known() ? json(name(m.moe.router)) : json(nullptr);
    moe["capacity_factor"] = p.extras_known() ? json(m.moe.capacity_factor) : json(nullptr);
    moe["mtp_layers"] = p.extras_known() ? json(m.mtp_layers) : json(nullptr);
    moe["expert_activation_clamp"] = p.extras_known() ? json(m.moe.activation_clamp) : json(nullptr);
    j["model"]["moe"] = moe;
  }
  // model.yarn_factor (0 = plain RoPE); from the rebuilt scenario, null when it could not be rebuilt.
  j["model"]["yarn_factor"] = p.extras_known() ? json(m.yarn_factor) : json(nullptr);
  j["model"]["attention_window"] = p.extras_known() ? json(m.attention_window) : json(nullptr);
  j["model"]["full_attention_every"] = p.extras_known() ? json(m.full_attention_every) : json(nullptr);
  // model.rope_theta and model.norm_eps (they cost nothing; docs/export.md "Model flags"), null when not rebuilt.
  j["model"]["rope_theta"] = p.rope_theta() > 0 ? json(p.rope_theta()) : json(nullptr);
  j["model"]["norm_eps"] = p.norm_eps() > 0 ? json(p.norm_eps()) : json(nullptr);
  if (p.mla())
    j["model"]["mla"] = {{"q_lora_rank", m.mla.q_lora_rank}, {"kv_lora_rank", m.mla.kv_lora_rank},
                         {"rope_head_dim", m.mla.rope_head_dim}, {"v_head_dim", p.v_head_dim()}};
  j["training"] = {{"global_batch", p.training().global_batch}, {"micro_batch", p.training().micro_batch}, {"precision", name(p.training().precision)},
                   {"tokens", p.training().tokens},
                   {"trained_tokens", p.trained_tokens},
                   {"steps", p.train_steps()},
                   {"warmup_tokens", p.extras_known() ? json(p.training().warmup_tokens) : json(nullptr)},
                   {"warmup_steps", p.extras_known() ? json(p.warmup_steps()) : json(nullptr)}};
  json plan = {{"tp", p.plan().tp},
               {"pp", p.plan().pp},
               {"cp", p.plan().cp},
               {"interleave", p.plan().interleave},
               {"sequence_parallel", p.plan().sequence_parallel},
               {"sharding", name(p.plan().sharding)},
               {"shard_group", p.plan().shard_group},
               {"recompute", name(p.plan().recompute)},
               {"attention", name(p.plan().attention)},
               {"sync", name(p.plan().sync)},
               {"pp_across_islands", p.plan().pp_across_islands}};
  // The pipeline split and the blocks of every rank as the model costs them (docs/model.md §5.4).
  plan["pp_first_stage_layers"] = p.plan().pp_first_stage_layers;
  plan["pp_last_stage_layers"] = p.plan().pp_last_stage_layers;
  plan["pp_embedding_layers"] = p.plan().pp_embedding_layers;
  plan["pp_head_layers"] = p.plan().pp_head_layers;
  json ranks = json::array();
  for (std::int64_t r = 0; r < p.plan().pp; ++r) ranks.push_back(p.rank_layers(r));
  plan["stage_layers"] = ranks;
  plan["overlap_grad_reduce"] = p.plan().overlap_grad_reduce;
  plan["overlap_param_gather"] = p.plan().overlap_param_gather;
  plan["recompute_layers"] = p.plan().recompute_layers;
  // Only when plan.recompute and plan.moe_recompute do not already say it (docs/model.md §7.11).
  if (!p.recompute_modules_beyond_megatron_default().empty()) plan["recompute_modules"] = p.recompute_modules_text();
  plan["reshard_after_forward"] = p.plan().reshard_after_forward;
  plan["tp_comm_overlap"] = p.plan().tp_comm_overlap;
  plan["tp_dgrad_overlap"] = p.plan().tp_dgrad_overlap;
  plan["ep"] = p.plan().ep;
  plan["etp"] = p.plan().etp;
  if (p.moe()) {
    plan["ep_dispatcher"] = name(p.plan().ep_dispatcher);
    plan["ep_overlap"] = p.plan().ep_overlap;
    plan["moe_recompute"] = p.extras_known() ? json(name(p.plan().moe_recompute)) : json(nullptr);
  }
  // Written only when set (docs/model.md §5.8, §7.12), so plans without them keep their JSON.
  if (p.plan().pipeline_schedule != model::PipelineSchedule::one_f_one_b) plan["pipeline_schedule"] = name(p.plan().pipeline_schedule);
  if (p.plan().fp8_activation_cache) plan["fp8_activation_cache"] = true;
  if (p.plan().activation_offload_layers > 0) plan["activation_offload_layers"] = p.plan().activation_offload_layers;  // §7.15
  if (p.plan().optimizer_offload_fraction > 0) plan["optimizer_offload_fraction"] = p.plan().optimizer_offload_fraction;  // §7.16
  if (p.diloco())
    plan["diloco"] = {{"inner_steps", p.plan().diloco.inner_steps}, {"outer_bits", p.plan().diloco.outer_bits},
                      {"fragments", p.plan().diloco.fragments}, {"overlap_steps", p.plan().diloco.overlap_steps}};
  j["plan"] = plan;
  // One job over every GPU (synchronous) or one job per island (DiLoCo): its world, data-parallel mesh and batch.
  j["job"] = {{"jobs", p.diloco() ? p.islands.size() : 1},
              {"world_size", p.job_gpus()},
              {"model_parallel", p.model_parallel()},
              {"data_parallel", p.degrees().data_parallel},
              {"data_parallel_shard", p.degrees().dp_shard},
              {"data_parallel_replicate", p.degrees().dp_replicate},
              {"expert_data_parallel", p.expert_data_parallel()},
              {"batch_per_step", p.batch_per_job},
              {"gradient_accumulation_steps", p.identical_islands || p.diloco() ? json(p.grad_accum()) : json(nullptr)}};
  j["total_gpus"] = p.total_gpus();
  // The plan's GPU types uncalibrated on its stack (not the whole front's: B200 is fitted for megatron_te only).
  json uncalibrated = nullptr;
  if (info.uncalibrated_gpus) {
    uncalibrated = json::array();
    for (const DeployIsland& d : p.islands)
      if (gpu_calibration(info, *source.row, d.gpu, stack_name(p)) == RowCalibration::uncalibrated &&
          std::find(uncalibrated.begin(), uncalibrated.end(), d.gpu) == uncalibrated.end())
        uncalibrated.push_back(d.gpu);
  }
  j["uncalibrated_gpus"] = uncalibrated;
  json islands = json::array();
  for (const DeployIsland& d : p.islands)
    islands.push_back({{"entry", d.entry},
                       {"copy", d.copy},
                       {"name", d.name},
                       {"gpu", d.gpu},
                       {"nodes", d.nodes},
                       {"gpus_per_node", d.gpus_per_node},
                       {"gpus", d.gpus},
                       {"spot", d.spot},
                       {"price_usd_per_gpu_hour", d.price_usd_per_gpu_hour},
                       {"ranks", {{"first", d.first_rank}, {"last", d.last_rank}}},
                       {"node_ranks", {{"first", d.first_node}, {"last", d.first_node + d.nodes - 1}}},
                       {"data_parallel", d.data_parallel},
                       {"batch_share", finite_or_null(d.batch_share)}});
  j["islands"] = islands;
  json predicted, units;
  for (const model::Metric& metric : model::metrics()) {
    predicted[std::string(metric.name)] = metric.unit == model::metric_table::kBoolean
                                              ? json(p.metric(metric) != 0)
                                              : finite_or_null(p.metric(metric));
    units[std::string(metric.name)] = metric.unit;
  }
  predicted["bottleneck"] = name(p.record.estimate.bottleneck);
  j["predicted"] = predicted;
  j["units"] = units;
  return Exported{json_text(j), {}};
}

}  // namespace shardmeter::results
