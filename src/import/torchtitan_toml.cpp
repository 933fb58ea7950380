#include "src/import/torchtitan_toml.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "src/import/toml_subset.hpp"

namespace shardmeter::cli {

namespace {

// torchtitan v0.2.2's registered flavors and the shipped preset with their dimensions (the table the export matches
// against, results/export/torchtitan_plan.cpp): name, flavor, preset, layers.
struct Flavor {
  std::string_view name, flavor, preset;
  long long layers;
};
constexpr Flavor kFlavors[] = {
    {"llama3", "8B", "llama3-8b", 32},          {"llama3", "70B", "llama3-70b", 80},
    {"llama3", "405B", "llama3-405b", 126},     {"qwen3", "30B-A3B", "qwen3-30b-a3b", 48},
    {"qwen3", "235B-A22B", "qwen3-235b-a22b", 94}, {"deepseek_v3", "671B", "deepseek-v3", 61},
};

// Tables left out whole: they change nothing ShardMeter costs.
const std::set<std::string, std::less<>> kLeftOutTables = {
    "metrics", "checkpoint", "optimizer", "lr_scheduler", "profiling", "comm", "memory_estimation", "validation",
    "experimental", "job"};
// Keys of the read tables that change nothing ShardMeter costs.
const std::set<std::string, std::less<>> kLeftOutKeys = {
    "model.hf_assets_path", "model.tokenizer_path", "model.print_after_conversion", "training.max_norm",
    "training.dataset", "training.dataset_path", "training.gc_freq", "training.seed", "training.deterministic",
    "training.warmup_steps", "parallelism.disable_loss_parallel", "parallelism.context_parallel_rotate_method",
    "fault_tolerance.replica_id", "fault_tolerance.min_replica_size", "fault_tolerance.process_group",
    "fault_tolerance.process_group_timeout_ms", "float8.precompute_float8_dynamic_scale_for_fsdp",
    "float8.filter_fqns", "float8.emulate", "activation_checkpoint.preserve_rng_state", "activation_checkpoint.early_stop",
    "activation_checkpoint.per_op_sac_force_recompute_mm_shapes_by_fqns", "compile.components"};

class Toml {
public:
  Toml(std::map<std::string, TomlValue> values, std::string file) : v_(std::move(values)), file_(std::move(file)) {}
  bool has(const std::string& key) const {
    asked_.insert(key);
    return v_.count(key) != 0;
  }
  const TomlValue& get(const std::string& key) const { return v_.at(key); }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    if (v_.count(key) == 0) throw ScenarioError(SourceLocation{file_, 0, 0}, key, "(not given)", problem);
    throw ScenarioError(get(key).at, key, get(key).text, problem);
  }
  // Integers from -1 to 10^12 (no product of two overflows); `least` 1 for a degree or size that divides.
  long long integer(const std::string& key, long long fallback, long long least = -1) const {
    if (!has(key)) return fallback;
    if (get(key).kind != TomlValue::Kind::integer) fail(key, "is not an integer");
    const long long v = std::stoll(get(key).text);
    if (v < least || v > 1'000'000'000'000) fail(key, "is not an integer from " + std::to_string(least) + " to 10^12");
    return v;
  }
  // A parallel degree: 1 to 2^20 (the scenario keys' bound), 1 when absent.
  long long degree(const std::string& key) const {
    const long long v = integer(key, 1, 1);
    if (v > (1 << 20)) fail(key, "is above 2^20");
    return v;
  }
  std::string string(const std::string& key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (get(key).kind != TomlValue::Kind::string) fail(key, "is not a string");
    return get(key).text;
  }
  bool boolean(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (get(key).kind != TomlValue::Kind::boolean) fail(key, "is not true or false");
    return get(key).text == "true";
  }
  SourceLocation at(const std::string& key) const { return v_.count(key) ? get(key).at : SourceLocation{file_, 0, 0}; }
  std::string said(const std::string& key) const {
    if (v_.count(key) == 0) return key + " not given (v0.2.2 default)";
    const TomlValue& x = get(key);
    return key + " = " + (x.kind == TomlValue::Kind::string ? "\"" + x.text + "\"" : x.text);
  }
  void check_all_read() const {
    for (const auto& [key, value] : v_) {
      if (asked_.count(key) != 0 || kLeftOutKeys.count(key) != 0) continue;
      const std::string table = key.substr(0, key.find('.'));
      if (key.find('.') != std::string::npos && kLeftOutTables.count(table) != 0) continue;
      throw ScenarioError(value.at, key, value.text,
                          "is a torchtitan key the import does not map: it is neither a model, batch, parallelism, "
                          "checkpointing or precision setting ShardMeter costs nor known to leave the cost unchanged "
                          "(docs/import.md)");
    }
  }

private:
  std::map<std::string, TomlValue> v_;
  std::string file_;
  mutable std::set<std::string, std::less<>> asked_;
};

}  // namespace

ImportedScenario import_torchtitan(const std::string& text, const std::string& file) {
  const Toml t(read_toml_subset(text, file), file);
  ImportedScenario out;
  out.framework = "torchtitan";
  out.source = file;
  const auto set = [&](const std::string& key, const std::string& value, const std::string& from) {
    out.set(key, value, t.at(from), t.said(from));
  };

  // ---- the model -------------------------------------------------------------------------------------------------
  long long layers = 0;
  if (t.has("model.name")) {
    std::string name = t.string("model.name", "");
    if (name == "llama3_ft") name = "llama3";
    const std::string flavor = t.string("model.flavor", "");
    const Flavor* found = nullptr;
    for (const Flavor& f : kFlavors)
      if (f.name == name && f.flavor == flavor) found = &f;
    if (found == nullptr)
      t.fail(t.has("model.flavor") ? "model.flavor" : "model.name",
             "is not a torchtitan v0.2.2 model whose dimensions the import knows (llama3 8B / 70B / 405B, qwen3 "
             "30B-A3B / 235B-A22B, deepseek_v3 671B): leave [model] name out and give --model PRESET");
    set("model", fmt::format("{{preset: {}}}", found->preset), "model.flavor");
    layers = found->layers;
    out.has_model = true;
  } else {
    out.notes.push_back("no [model] name: the model is the base scenario's (or --model PRESET)");
  }
  std::string precision = "bf16";
  if (t.has("model.converters")) {
    const TomlValue& c = t.get("model.converters");
    if (c.kind != TomlValue::Kind::array) t.fail("model.converters", "is not an array");
    for (const TomlValue& item : c.items) {
      if (item.text == "float8" || item.text == "quantize.linear.float8") precision = "fp8";
      else t.fail("model.converters", "names the converter " + item.text + ", which ShardMeter does not cost");
    }
  }

  // ---- training --------------------------------------------------------------------------------------------------
  const long long seq = t.integer("training.seq_len", 2048, 1);
  set("model.seq_len", std::to_string(seq), "training.seq_len");
  const long long local = t.integer("training.local_batch_size", 8, 1);
  const long long global = t.integer("training.global_batch_size", -1);
  if (global <= 0)
    throw ScenarioError(t.at("training.global_batch_size"), "training.global_batch_size", "",
                        "is required: v0.2.2's default (-1) is the local batch x data-parallel ranks, given here so "
                        "the scenario's batch is explicit");
  set("training.global_batch", std::to_string(global), "training.global_batch_size");
  const long long steps = t.integer("training.steps", 10000, 0);
  set("training.tokens",
      fmt::format("{:.17g}", static_cast<double>(steps) * static_cast<double>(global) * static_cast<double>(seq)),
      "training.steps");
  // The warm-up (config/job_config.py LRScheduler.warmup_steps, default 200; lr_scheduler.py caps it at the steps).
  const long long warmup = std::min(steps, t.integer("lr_scheduler.warmup_steps", 200, 0));
  set("training.warmup_tokens",
      fmt::format("{:.17g}", static_cast<double>(warmup) * static_cast<double>(global) * static_cast<double>(seq)),
      "lr_scheduler.warmup_steps");
  const std::string param = t.string("training.mixed_precision_param", "bfloat16");
  if (param != "bfloat16") t.fail("training.mixed_precision_param", "is not bfloat16: fp32 training is not costed");
  if (t.has("training.mixed_precision_reduce")) {
    const std::string reduce = t.string("training.mixed_precision_reduce", "float32");
    if (reduce != "float32" && reduce != "bfloat16") t.fail("training.mixed_precision_reduce", "is not float32 or bfloat16");
    set("training.grad_reduce_dtype", reduce == "float32" ? "fp32" : "bf16", "training.mixed_precision_reduce");
  }
  // FSDP's CPU offload of parameters, gradients and optimizer state: all of it or none (docs/model.md §7.16; what
  // export --format torchtitan writes for plan.optimizer_offload_fraction 1). No per-block activation offload.
  set("plan.optimizer_offload_fraction", t.boolean("training.enable_cpu_offload", false) ? "1" : "0",
      "training.enable_cpu_offload");
  set("plan.activation_offload_layers", "0", "training.enable_cpu_offload");
  set("training.precision", precision, "model.converters");
  if (t.has("float8.enable_fsdp_float8_all_gather"))
    set("training.fp8_params", t.boolean("float8.enable_fsdp_float8_all_gather", false) ? "true" : "false",
        "float8.enable_fsdp_float8_all_gather");
  if (t.has("float8.recipe_name")) {
    const std::string recipe = t.string("float8.recipe_name", "tensorwise");
    if (recipe != "tensorwise") t.fail("float8.recipe_name", "is not tensorwise (current scaling), the recipe costed");
    set("training.fp8_recipe", "current", "float8.recipe_name");
  }
  if (t.boolean("compile.enable", false))
    out.notes.push_back("[compile] enable = true: the torch_fsdp2 efficiencies are fitted without torch.compile; the "
                        "estimate does not credit it");

  // ---- parallelism -----------------------------------------------------------------------------------------------
  const std::string p = "parallelism.";
  const long long replicate = t.degree(p + "data_parallel_replicate_degree");
  const long long shard = t.integer(p + "data_parallel_shard_degree", -1);
  if (shard > (1 << 20)) t.fail(p + "data_parallel_shard_degree", "is above 2^20");
  const long long tp = t.degree(p + "tensor_parallel_degree");
  const long long pp = t.degree(p + "pipeline_parallel_degree");
  const long long cp = t.degree(p + "context_parallel_degree");
  if (t.boolean(p + "enable_async_tensor_parallel", false))
    t.fail(p + "enable_async_tensor_parallel", "needs torch.compile, which the plans are not costed with");
  if (shard == -1 && replicate > 1)
    t.fail(p + "data_parallel_shard_degree", "is -1 (the rest) with replication: give the shard degree, the HSDP "
                                             "shard group depends on it");
  if (shard == 0 || shard < -1) t.fail(p + "data_parallel_shard_degree", "is not -1 or a degree");
  const std::string reshard = t.string(p + "fsdp_reshard_after_forward", "default");
  if (reshard != "default" && reshard != "always" && reshard != "never")
    t.fail(p + "fsdp_reshard_after_forward", "is not default, always or never");
  std::string sharding = "none";
  if (shard > 1 || shard == -1) sharding = replicate > 1 ? "hsdp" : "fsdp";
  set("plan.sharding", sharding, p + "data_parallel_shard_degree");
  if (sharding == "hsdp") set("plan.shard_group", std::to_string(shard * tp * cp), p + "data_parallel_shard_degree");
  if (sharding != "none")
    set("plan.reshard_after_forward",
        reshard == "always" || (reshard == "default" && pp == 1) ? "true" : "false", p + "fsdp_reshard_after_forward");
  set("plan.tp", std::to_string(tp), p + "tensor_parallel_degree");
  set("plan.sequence_parallel", tp > 1 ? "true" : "false", p + "tensor_parallel_degree");
  set("plan.tp_comm_overlap", "false", p + "tensor_parallel_degree");
  set("plan.tp_dgrad_overlap", "false", p + "tensor_parallel_degree");
  set("plan.pp", std::to_string(pp), p + "pipeline_parallel_degree");
  set("plan.cp", std::to_string(cp), p + "context_parallel_degree");
  long long micro = local;
  if (pp > 1) {
    const std::string schedule = t.string(p + "pipeline_parallel_schedule", "1F1B");
    const long long first = t.integer(p + "pipeline_parallel_first_stage_less_layers", 1, 0);
    const long long last = t.integer(p + "pipeline_parallel_last_stage_less_layers", 1, 0);
    micro = t.integer(p + "pipeline_parallel_microbatch_size", 1, 1);
    if (local % micro != 0) t.fail(p + "pipeline_parallel_microbatch_size", "does not divide training.local_batch_size");
    long long interleave = 1;
    if (schedule == "Interleaved1F1B") {
      if (!t.has(p + "pipeline_parallel_layers_per_stage"))
        t.fail(p + "pipeline_parallel_schedule", "is interleaved without pipeline_parallel_layers_per_stage");
      if (layers == 0)
        t.fail(p + "pipeline_parallel_schedule", "is interleaved and the model's layers are unknown (no [model] "
                                                 "flavor): the virtual stages per rank cannot be counted");
      const long long lps = t.integer(p + "pipeline_parallel_layers_per_stage", 1, 1);
      const long long stages = (layers + first + last + lps - 1) / lps;
      if (stages % pp != 0 || stages / pp < 2)
        t.fail(p + "pipeline_parallel_layers_per_stage", fmt::format("gives {} virtual stages, not 2 or more per rank "
                                                                     "of pp {}", stages, pp));
      interleave = stages / pp;
    } else if (schedule != "1F1B") {
      t.fail(p + "pipeline_parallel_schedule", "is not 1F1B or Interleaved1F1B, the schedules ShardMeter costs");
    } else if (t.has(p + "pipeline_parallel_layers_per_stage") && layers > 0) {
      const long long lps = t.integer(p + "pipeline_parallel_layers_per_stage", 1, 1);
      if ((layers + first + last + lps - 1) / lps != pp)
        t.fail(p + "pipeline_parallel_layers_per_stage", "does not give one stage per rank, which 1F1B runs");
    }
    set("plan.interleave", std::to_string(interleave), p + "pipeline_parallel_schedule");
    set("plan.pp_embedding_layers", std::to_string(first), p + "pipeline_parallel_first_stage_less_layers");
    set("plan.pp_head_layers", std::to_string(last), p + "pipeline_parallel_last_stage_less_layers");
    set("plan.pp_first_stage_layers", "0", p + "pipeline_parallel_schedule");
    set("plan.pp_last_stage_layers", "0", p + "pipeline_parallel_schedule");
  } else {
    set("plan.interleave", "1", p + "pipeline_parallel_degree");
  }
  set("training.micro_batch", std::to_string(micro),
      pp > 1 ? p + "pipeline_parallel_microbatch_size" : "training.local_batch_size");
  if (t.has(p + "expert_parallel_degree") || t.has(p + "expert_tensor_parallel_degree")) {
    const long long ep = t.integer(p + "expert_parallel_degree", 1);
    set("plan.ep", std::to_string(ep), p + "expert_parallel_degree");
    // With EP 1 the experts take the dense TP (job_config.py:464-472).
    set("plan.etp", std::to_string(ep == 1 ? tp : t.integer(p + "expert_tensor_parallel_degree", 1)),
        p + "expert_tensor_parallel_degree");
  }
  if (t.has(p + "expert_parallel_comm_backend")) {
    const std::string backend = t.string(p + "expert_parallel_comm_backend", "standard");
    if (backend != "standard" && backend != "deepep") t.fail(p + "expert_parallel_comm_backend", "is not standard or deepep");
    set("plan.ep_dispatcher", backend == "deepep" ? "deepep" : "alltoall", p + "expert_parallel_comm_backend");
  }

  // ---- activation checkpointing ------------------------------------------------------------------------------------
  const std::string a = "activation_checkpoint.";
  const std::string mode = t.string(a + "mode", "selective");
  std::string recompute = "none";
  long long recompute_layers = 0;
  if (mode == "full") {
    recompute = "full";
  } else if (mode == "selective") {
    const std::string option = t.has(a + "selective_ac_option") ? t.get(a + "selective_ac_option").text : "2";
    if (option == "op") {
      recompute = "op_selective";
    } else {
      long long k = 0;
      try {
        k = std::stoll(option);
      } catch (const std::exception&) {
        t.fail(a + "selective_ac_option", "is not op or a layer frequency");
      }
      if (k <= 0) t.fail(a + "selective_ac_option", "is not op or a layer frequency");
      if (layers == 0 || pp > 1)
        t.fail(a + "selective_ac_option", "checkpoints every k-th block: the import counts the blocks only without "
                                          "pipeline parallelism and with a known [model] flavor");
      recompute = "full";
      recompute_layers = layers / k;
    }
  } else if (mode != "none") {
    t.fail(a + "mode", "is not none, selective or full");
  }
  set("plan.recompute", recompute, a + "mode");
  set("plan.recompute_layers", std::to_string(recompute_layers), a + "selective_ac_option");

  // ---- TorchFT DiLoCo ----------------------------------------------------------------------------------------------
  const std::string f = "fault_tolerance.";
  if (t.boolean(f + "enable", false)) {
    const std::string method = t.string(f + "semi_sync_method", "");
    if (method != "diloco")
      t.fail(f + "semi_sync_method", "is not diloco: TorchFT's other modes are not costed");
    t.integer(f + "group_size", 0);
    set("plan.sync", "diloco", f + "semi_sync_method");
    set("plan.diloco.inner_steps", std::to_string(t.integer(f + "sync_steps", 5)), f + "sync_steps");
    set("plan.diloco.outer_bits", t.boolean(f + "should_quantize", false) ? "8" : "32", f + "should_quantize");
    set("plan.diloco.overlap_steps", std::to_string(t.integer(f + "fragment_sync_delay", 0)), f + "fragment_sync_delay");
    set("plan.diloco.fragments", std::to_string(t.integer(f + "num_fragments", 1)), f + "num_fragments");
    t.has(f + "lighthouse");
    out.notes.push_back("DiLoCo: one replica group per island of the cluster (fault_tolerance.group_size)");
  } else {
    set("plan.sync", "synchronous", f + "enable");
  }
  set("plan.stack", "torch_fsdp2", "parallelism.data_parallel_shard_degree");
  out.notes.push_back("plan.stack is torch_fsdp2 (torchtitan runs FSDP2); --set plan.stack=... to cost another");
  out.notes.push_back("training.tokens is training.steps x global_batch_size x seq_len");
  t.has("compile.enable");
  t.has("job.custom_config_module");
  t.check_all_read();
  return out;
}

}  // namespace shardmeter::cli
