// check_scenario: cross-field consistency (model::check_consistency), reported at the blamed key's position
// with a sentence per rule.
#include "src/scenario/scenario_check.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/parallel/consistency.hpp"
#include "model/spec/enum_names.hpp"
#include "model/parallel/pipeline_stages.hpp"
#include "src/scenario/enum_names.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

std::string number(double v) {
  if (std::fabs(v) < 9e18 && v == std::floor(v)) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:g}", v);
}

std::string field_path(m::FieldId field, int island) {
  std::string path(m::field_path_pattern(field));
  if (const auto hash = path.find('#'); hash != std::string::npos) path.replace(hash, 1, std::to_string(island));
  return path;
}

bool has_key(const ScenarioDocument& doc, const std::string& key) {
  const YamlSource source{doc.path, &doc.overridden};
  return find_node(doc.root.node(), key).IsDefined() || source.override_for(key) != nullptr;
}

std::string scalar_or_empty(const ScenarioDocument& doc, const std::string& key) {
  const YAML::Node node = find_node(doc.root.node(), key);
  return node.IsDefined() && node.IsScalar() ? node.Scalar() : "";
}

// Where a blamed value came from when the user did not write it: its position (the nearest key the user did
// write) and a note for the message, e.g. " (from model.preset = llama3-8b)".
struct Provenance {
  SourceLocation where;
  std::string note;
};

Provenance provenance(const ScenarioDocument& doc, const std::string& key) {
  if (has_key(doc, key)) return {locate(doc, key), ""};
  if (key.starts_with("model.") && has_key(doc, "model.preset"))
    return {locate(doc, "model.preset"), " (from model.preset = " + scalar_or_empty(doc, "model.preset") + ")"};
  if (key.starts_with("cluster.islands.")) {
    const std::string island = key.substr(0, key.find('.', std::string("cluster.islands.").size()));
    if (key == island + ".gpus" && has_key(doc, island + ".nodes"))
      return {locate(doc, island + ".nodes"), " (nodes x gpus_per_node)"};
    if (has_key(doc, island + ".gpu"))
      return {locate(doc, island + ".gpu"), " (from the GPU catalog entry)"};
  }
  return {locate(doc, key), " (default)"};
}

std::string describe_value(m::FieldId field, double value) {
  if (field == m::FieldId::plan_pp_across_islands || field == m::FieldId::training_fp8_params)
    return value != 0 ? "true" : "false";
  if (field == m::FieldId::plan_sync) return "diloco";
  // An enum field's value is its enumerator; only those are converted (any other value may exceed 255).
  const auto code = [value] { return static_cast<std::uint8_t>(std::clamp(value, 0.0, 255.0)); };
  if (field == m::FieldId::training_precision) return std::string(m::enum_name(static_cast<m::Precision>(code())));
  if (field == m::FieldId::training_fp8_recipe) return std::string(m::enum_name(static_cast<m::Fp8Recipe>(code())));
  if (field == m::FieldId::plan_stack) return std::string(m::enum_name(static_cast<m::Stack>(code())));
  if (field == m::FieldId::island_gpu_fp8) return number(value / 1e12);  // FLOP/s -> the key's TFLOP/s
  if (field == m::FieldId::plan_recompute) return std::string(m::enum_name(static_cast<m::Recompute>(code())));
  if (field == m::FieldId::plan_sharding) return std::string(m::enum_name(static_cast<m::Sharding>(code())));
  if (field == m::FieldId::island_gpu_host_link) return number(value / 1e9);  // bytes/s -> the key's GB/s
  return number(value);
}

// "model.heads = 32" (with its provenance note) for the other side of a rule.
std::string other_text(const ScenarioDocument& doc, const m::Violation& v) {
  const std::string path = field_path(v.other, v.island);
  return path + " = " + describe_value(v.other, v.other_value) + provenance(doc, path).note;
}

// The uneven-pipeline rules (model/parallel/consistency.cpp, docs/model.md §5.4), in the words of the framework they follow.
std::string pipeline_split_text(const m::Scenario& s, const m::Violation& v, const std::string& other) {
  const m::PlanSpec& plan = s.plan;
  const std::int64_t layers = s.model.layers;
  const std::int64_t given = (plan.pp_first_stage_layers > 0 ? 1 : 0) + (plan.pp_last_stage_layers > 0 ? 1 : 0);
  if (v.field == m::FieldId::plan_pp_embedding_layers || v.field == m::FieldId::plan_pp_head_layers) {
    if (v.other != m::FieldId::plan_pp)
      return "cannot be combined with " + other +
             " (Megatron-Core refuses the embedding / loss accounting with explicit first / last stage counts)";
    const std::int64_t effective = m::effective_pipeline_layers(s.model, plan);
    const std::int64_t stages = static_cast<std::int64_t>(plan.pp) * plan.interleave;
    return "exceeds the " + number(static_cast<double>(effective / stages)) +
           " effective layers of the smallest pipeline stage ((layers + embedding + head) / (pp x interleave) = " +
           number(static_cast<double>(effective)) + " / " + number(static_cast<double>(stages)) + ", torchtitan's limit)";
  }
  if (v.other == m::FieldId::plan_pp) return "needs a pipeline, but " + other;
  if (v.other == m::FieldId::plan_interleave) {
    const std::int64_t rest = plan.pp - given;
    const std::int64_t middle =
        rest > 0 ? (layers - plan.pp_first_stage_layers - plan.pp_last_stage_layers) / rest : 0;
    return "gives pipeline ranks of " + number(static_cast<double>(plan.pp_first_stage_layers)) + " / " +
           number(static_cast<double>(middle)) + " / " + number(static_cast<double>(plan.pp_last_stage_layers)) +
           " layers (first / middle / last; 0 = not set), each of which Megatron-Core needs divisible by " + other;
  }
  const std::int64_t rest_layers = layers - plan.pp_first_stage_layers - plan.pp_last_stage_layers;
  const std::int64_t rest_stages = plan.pp - given;
  if (rest_layers < 0)
    return "plus the other explicit stage count gives " +
           number(static_cast<double>(plan.pp_first_stage_layers + plan.pp_last_stage_layers)) +
           " layers, more than " + other;
  return "leaves " + number(static_cast<double>(rest_layers)) + " layers for the " +
         number(static_cast<double>(rest_stages)) + " other pipeline ranks of " + other +
         ", which Megatron-Core needs to split evenly (and to be 0 exactly when no rank is left)";
}

// Host-memory offload a stack refuses (model/parallel/consistency.cpp; docs/model.md §7.15, §7.16), in the
// framework's own terms.
std::string offload_text(const m::Violation& v, const std::string& other) {
  using F = m::FieldId;
  if (v.other == F::island_gpu_host_link)
    return "crosses the GPU's link to host memory, which is unknown: " + other +
           "; give the island (or its inline gpu) host_link_gbps (docs/model.md §7.15)";
  if (v.field == F::plan_activation_offload_layers) {
    if (v.other == F::plan_stack)
      return "needs plan.stack: megatron_te (Megatron-Core offloads through Transformer Engine's CPU offload "
             "context), but " + other;
    if (v.other == F::plan_pp)
      return "needs plan.pp: 1 (Megatron-Core: \"Currently there is no support for Pipeline parallelism with CPU "
             "offloading\"), but " + other;
    if (v.other == F::plan_recompute)
      return "needs plan.recompute: none (Megatron-Core: \"CPU offloading does not work when activation "
             "recomputation is enabled\"), but " + other;
    return "must be smaller than " + other + " (Megatron-Core offloads at most all blocks but the last)";
  }
  if (v.other == F::plan_sharding)
    return "needs a sharded optimizer (Megatron's distributed optimizer, DeepSpeed ZeRO stage 1-3, FSDP; "
           "torch_fsdp1/2 offload only with fsdp or hsdp), but " + other;
  if (v.other == F::plan_stack)
    return "must be 0 or 1 on " + other + " (FSDP's CPU offload moves every shard or none)";
  return "needs fp8 delayed scaling when fp8 parameters are gathered (Megatron: --optimizer-cpu-offload with "
         "--fp8-param-gather needs --fp8-recipe delayed), but " + other;
}

std::string problem_text(const m::Scenario& s, const ScenarioDocument& doc, const m::Violation& v) {
  const m::PlanSpec& plan = s.plan;
  const std::string other = other_text(doc, v);
  switch (v.reason) {
    case m::RejectReason::parallel_degrees_do_not_divide_gpus: {
      const std::string per_island = plan.pp_across_islands ? " per island" : "";
      if (v.field == m::FieldId::plan_tp) return "does not divide " + other;
      const int pp_here = plan.pp_across_islands && s.cluster.total_islands() > 0
                              ? plan.pp / s.cluster.total_islands() : plan.pp;
      if (v.field == m::FieldId::plan_cp)
        return "gives tp x cp = " + number(plan.tp * plan.cp) + ", which does not divide " + other;
      return "gives tp x cp x pp" + per_island + " = " + number(plan.tp * plan.cp * pp_here) +
             ", which does not divide " + other;
    }
    case m::RejectReason::heads_not_divisible_by_tp:
    case m::RejectReason::kv_heads_not_divisible_by_tp:
    case m::RejectReason::ffn_not_divisible_by_tp:
    case m::RejectReason::island_not_whole_nodes:
      return "does not divide " + other;
    case m::RejectReason::layers_not_divisible_by_pipeline: {
      const int weights = plan.pp_embedding_layers + plan.pp_head_layers;
      const std::string counted = weights > 0 ? " plus the " + number(weights) + " the embedding and head count as" : "";
      if (plan.interleave > 1)
        return "gives pp x interleave = " + number(plan.pp * plan.interleave) +
               " virtual pipeline stages, more than " + other + counted + " (each stage needs a layer)";
      return "leaves a pipeline stage without layers: it exceeds " + other + counted;
    }
    case m::RejectReason::pipeline_split_invalid: return pipeline_split_text(s, v, other);
    case m::RejectReason::seq_not_divisible_by_cp:
      return "splits each sequence into 2 x cp = " + number(2 * plan.cp) +
             " chunks (for causal load balance), which does not divide " + other;
    case m::RejectReason::global_batch_not_divisible: {
      if (plan.sync == m::SyncMode::diloco)
        return "is not divisible by islands x micro_batch x island " + number(v.island) +
               "'s data-parallel degree = " + number(v.other_value) + " (each DiLoCo island trains an equal share)";
      const int dp = m::total_data_parallel(s);
      const std::int64_t replicas_batch = static_cast<std::int64_t>(s.training.micro_batch) * dp;
      if (dp <= 0) return "cannot be split: the plan leaves no data-parallel replica";
      if (s.training.global_batch < replicas_batch)
        return "is smaller than micro_batch x data-parallel degree = " + number(static_cast<double>(replicas_batch)) +
               " (" + number(s.training.micro_batch) + " x " + number(dp) + ")";
      return "is not divisible by micro_batch x data-parallel degree = " + number(v.other_value) + " (" +
             number(s.training.micro_batch) + " x " + number(v.other_value / s.training.micro_batch) + ")";
    }
    case m::RejectReason::interleave_needs_pipeline: {
      if (plan.pp <= 1) return "needs a pipeline, but " + other;
      const int dp = m::total_data_parallel(s);
      const std::int64_t per_replica = static_cast<std::int64_t>(s.training.micro_batch) * (dp > 0 ? dp : 1);
      return "needs the micro-batches per step (global_batch / (micro_batch x data-parallel degree) = " +
             number(static_cast<double>(s.training.global_batch / per_replica)) + ") to be a multiple of " + other;
    }
    case m::RejectReason::shard_group_invalid:
      return "is not a whole number of tp x cp = " + number(plan.tp * plan.cp) +
             " GPU groups dividing the data-parallel GPUs of " + other;
    case m::RejectReason::pipeline_exceeds_islands:
      return "is not a multiple of the number of islands (" + other + ") as plan.pp_across_islands requires";
    case m::RejectReason::heterogeneous_plan_invalid:
      return "cannot be combined with " + other;
    case m::RejectReason::diloco_needs_islands:
      return "needs at least two islands, but " + other;
    case m::RejectReason::wan_link_missing:
      return "(islands in total) need a WAN link between every pair: add cluster.wan {bandwidth_gbps, latency_ms} "
             "or a cluster.links entry for island " + number(v.island);
    case m::RejectReason::experts_not_divisible_by_ep:
      if (s.model.moe.experts == 0) return "needs a mixture-of-experts model, but " + other;
      return "does not divide " + other;
    case m::RejectReason::expert_folding_does_not_divide_gpus: {
      const int stages = plan.pp_across_islands && s.cluster.total_islands() > 0 ? plan.pp / s.cluster.total_islands()
                                                                                 : plan.pp;
      return "gives etp x ep = " + number(plan.etp * plan.ep) + ", which does not divide the " +
             number(v.other_value / stages) + " GPUs per pipeline stage of " + other;
    }
    case m::RejectReason::fp8_not_supported: {
      if (v.other == m::FieldId::island_gpu_fp8) {
        const std::string gpu(s.cluster.islands[static_cast<std::size_t>(v.island)].gpu.name.view());
        return "needs fp8 tensor cores, but GPU " + gpu + " of cluster.islands." + number(v.island) + " has none: " +
               other + "; use bf16 on it, or a GPU with fp8 (H100, H200, B200, ...)";
      }
      if (v.field == m::FieldId::training_precision)
        return "is not supported by " + other + " (Megatron-LM with apex and DeepSpeed of 2021 have no fp8; use "
               "megatron_te, torch_fsdp2, torch_fsdp1 or deepspeed)";
      if (v.field == m::FieldId::training_fp8_params && v.other == m::FieldId::training_precision)
        return "needs training.precision: fp8, but " + other;
      if (v.field == m::FieldId::training_fp8_params)
        return "(fp8 parameter all-gather) is not supported by " + other +
               " (Megatron's distributed optimizer and FSDP2 gather fp8 parameters: megatron_te, torch_fsdp2)";
      return "is not supported by " + other + " (torchao's Float8Linear scales dynamically: use current or auto)";
    }
    case m::RejectReason::offload_not_supported: return offload_text(v, other);
    case m::RejectReason::none:
    case m::RejectReason::out_of_memory:
    case m::RejectReason::goodput_below_floor:
    case m::RejectReason::count_:
      break;
  }
  return std::string(m::describe(v.reason)) + (v.other != m::FieldId::none ? " " + other : "");
}

// Degrees so large that the model's int products of them (tp x cp x pp, pp x interleave) could overflow can
// never be consistent; reject them first, in their own words.
void check_magnitudes(const m::Scenario& s, const ScenarioDocument& doc) {
  const m::PlanSpec& p = s.plan;
  const std::int64_t tp_cp_pp = static_cast<std::int64_t>(p.tp) * p.cp * p.pp;
  if (tp_cp_pp > s.cluster.total_gpus()) {
    const Provenance where = provenance(doc, "plan.pp");
    throw ScenarioError(where.where, "plan.pp", number(p.pp) + where.note,
                        "gives tp x cp x pp = " + number(static_cast<double>(tp_cp_pp)) +
                            ", more than the cluster's " + number(static_cast<double>(s.cluster.total_gpus())) + " GPUs");
  }
  // The embedding and the output head count as layers of the pipeline split where the plan says so (torchtitan's
  // layers, Megatron's account-for flags; docs/model.md §5.4), as model/parallel/consistency.cpp counts them.
  const std::int64_t chunks = static_cast<std::int64_t>(p.pp) * p.interleave;
  const std::int64_t effective = m::effective_pipeline_layers(s.model, p);
  if (chunks > effective) {
    const std::string key = p.interleave > 1 ? "plan.interleave" : "plan.pp";
    const Provenance where = provenance(doc, key);
    const std::string limit =
        effective > s.model.layers ? "model.layers + plan.pp_embedding_layers + plan.pp_head_layers = " + number(static_cast<double>(effective))
                  : "model.layers = " + number(s.model.layers);
    throw ScenarioError(where.where, key, number(p.interleave > 1 ? p.interleave : p.pp) + where.note,
                        "gives pp x interleave = " + number(static_cast<double>(chunks)) +
                            " pipeline chunks, more than " + limit + provenance(doc, "model.layers").note);
  }
}

}  // namespace

void check_scenario(const m::Scenario& scenario, const ScenarioDocument& doc) {
  check_magnitudes(scenario, doc);
  const m::Violation v = m::check_consistency(scenario);
  if (!v) return;
  const std::string path = field_path(v.field, v.island);
  const Provenance where = provenance(doc, path);
  throw ScenarioError(where.where, path, describe_value(v.field, v.value) + where.note, problem_text(scenario, doc, v));
}

}  // namespace shardmeter::cli
