#include "src/import/deepspeed_config.hpp"

#include <set>

#include <fmt/format.h>

#include "src/scenario/located_json.hpp"

namespace shardmeter::cli {

namespace {

using json = nlohmann::json;

// Top-level keys that change nothing ShardMeter costs.
const std::set<std::string, std::less<>> kLeftOut = {
    "shardmeter_export", "steps_per_print", "wall_clock_breakdown", "gradient_clipping", "optimizer", "scheduler",
    "prescale_gradients", "gradient_predivide_factor", "dump_state", "tensorboard", "wandb", "csv_monitor",
    "flops_profiler", "comms_logger", "memory_breakpoint", "zero_allow_untested_optimizer", "seed",
    "communication_data_type", "data_types"};
// zero_optimization keys that tune buckets and prefetching, not what is sharded.
const std::set<std::string, std::less<>> kZeroLeftOut = {
    "contiguous_gradients", "reduce_bucket_size", "allgather_bucket_size", "reduce_scatter", "allgather_partitions",
    "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold", "stage3_max_live_parameters",
    "stage3_max_reuse_distance", "stage3_gather_16bit_weights_on_model_save", "round_robin_gradients",
    "sub_group_size", "elastic_checkpoint", "load_from_fp32_weights", "ignore_unused_parameters",
    "use_multi_rank_bucket_allreduce"};

class Reader {
public:
  explicit Reader(const LocatedJson& j) : j_(j) {}
  const json* find(const std::string& path) const { return j_.find(path); }
  bool has(const std::string& path) const { return find(path) != nullptr && !find(path)->is_null(); }
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const { throw j_.error(path, problem); }
  const json& required(const std::string& path) const {
    const json* v = find(path);
    if (v == nullptr || v->is_null())
      throw ScenarioError(j_.at(path.substr(0, path.rfind('.'))), path, "", "is required here");
    return *v;
  }
  // Whole numbers from 0 (or from 1 for a degree or count that divides) to 10^12: no product of two overflows.
  long long integer(const std::string& path, long long least = 0) const {
    const json& v = required(path);
    if (!v.is_number_integer() || v.get<long long>() < least || v.get<long long>() > 1'000'000'000'000)
      fail(path, least > 0 ? "is not a whole number from 1 to 10^12" : "is not a whole number from 0 to 10^12");
    return v.get<long long>();
  }
  bool boolean(const std::string& path) const {
    const json& v = required(path);
    if (!v.is_boolean()) fail(path, "is not true or false");
    return v.get<bool>();
  }
  double number(const std::string& path) const {
    const json& v = required(path);
    if (!v.is_number() || v.get<double>() < 0) fail(path, "is not a number");
    return v.get<double>();
  }
  SourceLocation at(const std::string& path) const { return j_.at(path); }
  std::string said(const std::string& path) const { return path + " = " + j_.text(path); }

private:
  const LocatedJson& j_;
};

// ZeRO-Offload, as export --format deepspeed writes it (docs/model.md §7.16): offload_optimizer {device: cpu,
// pin_memory, ratio} is plan.optimizer_offload_fraction (ratio, default 1, ZeRO-3's only); device none is no offload.
// NVMe, unpinned buffers and parameter offload (ZeRO-Infinity) are not costed.
template <class Set>
void read_offload(const Reader& r, long long stage, const Set& set) {
  const std::string o = "zero_optimization.offload_optimizer";
  double fraction = 0;
  if (r.has(o)) {
    if (!r.find(o)->is_object()) r.fail(o, "is not an object");
    for (const auto& [key, value] : r.find(o)->items())
      if (key != "device" && key != "pin_memory" && key != "ratio")
        r.fail(o + "." + key, "is not an offload_optimizer key the import reads (device, pin_memory, ratio)");
    // DeepSpeed's offload configs default the device to none.
    if (r.has(o + ".device") && !r.find(o + ".device")->is_string()) r.fail(o + ".device", "is not a string");
    const std::string device = r.has(o + ".device") ? r.find(o + ".device")->get<std::string>() : "none";
    if (device == "cpu") {
      if (stage == 0)
        r.fail(o + ".device", "offloads the optimizer without ZeRO (stage 0): DeepSpeed offloads stages 1-3");
      if (r.has(o + ".pin_memory") && !r.boolean(o + ".pin_memory"))
        r.fail(o + ".pin_memory", "is false: ShardMeter costs the copies over pinned host buffers at the host "
                                  "link's rate");
      fraction = r.has(o + ".ratio") ? r.number(o + ".ratio") : 1.0;
      if (fraction > 1) r.fail(o + ".ratio", "is above 1");
      if (fraction < 1 && stage != 3)
        r.fail(o + ".ratio", "offloads part of the optimizer, which DeepSpeed does in ZeRO-3 only");
    } else if (device == "nvme") {
      r.fail(o + ".device", "offloads the optimizer to NVMe (ZeRO-Infinity), which ShardMeter does not cost");
    } else if (device != "none") {
      r.fail(o + ".device", "is not cpu, nvme or none");
    }
  }
  const std::string po = "zero_optimization.offload_param";
  if (r.has(po)) {
    if (!r.find(po)->is_object()) r.fail(po, "is not an object");
    const json* device = r.find(po + ".device");
    if (device != nullptr && !(device->is_string() && device->get<std::string>() == "none"))
      r.fail(po + ".device", "offloads parameters to host memory or NVMe (ZeRO-Infinity), which ShardMeter does not "
                             "cost");
  }
  set("plan.optimizer_offload_fraction", fmt::format("{}", fraction),
      r.has(o + ".ratio") ? o + ".ratio" : r.has(o) ? o + ".device" : o);
  set("plan.activation_offload_layers", "0", o);  // DeepSpeed's config has no per-block activation offload
}

}  // namespace

ImportedScenario import_deepspeed(const std::string& path) {
  const LocatedJson j = LocatedJson::read_file(path);
  if (!j.root().is_object()) throw ScenarioError(SourceLocation{path, 1, 1}, "", "", "is not a JSON object");
  const Reader r(j);
  ImportedScenario out;
  out.framework = "deepspeed";
  out.source = path;
  const auto set = [&](const std::string& key, const std::string& value, const std::string& from) {
    out.set(key, value, r.at(from), r.has(from) ? r.said(from) : from + " not given (default)");
  };
  std::set<std::string> read = {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps",
                                "zero_optimization", "bf16", "fp16", "tensor_parallel", "pipeline",
                                "shardmeter_moe_layer", "shardmeter_train_steps", "shardmeter_warmup_steps"};
  for (const auto& [key, value] : j.root().items())
    if (read.count(key) == 0 && kLeftOut.count(key) == 0)
      r.fail(key, "is a DeepSpeed key the import does not map: it is neither a batch, sharding, precision or "
                  "parallelism setting ShardMeter costs nor known to leave the cost unchanged (docs/import.md)");

  // ---- degrees ---------------------------------------------------------------------------------------------------
  long long tp = 1, pp = 1;
  if (r.has("tensor_parallel")) {
    for (const auto& [key, value] : r.find("tensor_parallel")->items())
      if (key != "autotp_size") r.fail("tensor_parallel." + key, "is not a tensor_parallel key the import reads");
    if (r.has("tensor_parallel.autotp_size")) tp = r.integer("tensor_parallel.autotp_size", 1);
  }
  if (tp > (1 << 20)) r.fail("tensor_parallel.autotp_size", "is above 2^20");
  set("plan.tp", std::to_string(tp), "tensor_parallel.autotp_size");
  set("plan.sequence_parallel", "false", "tensor_parallel.autotp_size");
  if (r.has("pipeline")) {
    for (const auto& [key, value] : r.find("pipeline")->items())
      if (key != "stages" && key != "activation_checkpoint_interval" && key != "partition_method")
        r.fail("pipeline." + key, "is not a pipeline key the import reads");
    if (r.has("pipeline.stages")) pp = r.integer("pipeline.stages", 1);
    if (pp > 1 && r.has("pipeline.activation_checkpoint_interval")) {
      const long long interval = r.integer("pipeline.activation_checkpoint_interval");
      if (interval > 1)
        r.fail("pipeline.activation_checkpoint_interval", "checkpoints groups of layers; ShardMeter's full recompute "
                                                          "checkpoints every layer (1)");
      if (interval == 1) set("plan.recompute", "full", "pipeline.activation_checkpoint_interval");
      else out.notes.push_back("pipeline.activation_checkpoint_interval 0: recompute lives in the model code; "
                               "plan.recompute is the base scenario's");
    }
  }
  if (pp == 1)
    out.notes.push_back("recompute lives in the model code (e.g. gradient checkpointing): plan.recompute is the base "
                        "scenario's");
  if (pp > (1 << 20)) r.fail("pipeline.stages", "is above 2^20");
  set("plan.pp", std::to_string(pp), "pipeline.stages");
  set("plan.cp", "1", "pipeline.stages");
  set("plan.interleave", "1", "pipeline.stages");

  // ---- batch -----------------------------------------------------------------------------------------------------
  const long long micro = r.has("train_micro_batch_size_per_gpu") ? r.integer("train_micro_batch_size_per_gpu", 1) : 1;
  const long long accumulation = r.has("gradient_accumulation_steps") ? r.integer("gradient_accumulation_steps", 1) : 1;
  set("training.micro_batch", std::to_string(micro), "train_micro_batch_size_per_gpu");
  if (r.has("train_batch_size")) {
    if (tp > 1)
      r.fail("train_batch_size", "is given with AutoTP: DeepSpeed counts each sample once per tensor-parallel rank, "
                                 "so the global batch is ambiguous; leave it out and give the micro-batch and "
                                 "gradient_accumulation_steps");
    set("training.global_batch", std::to_string(r.integer("train_batch_size")), "train_batch_size");
  } else {
    // DeepSpeed derives it as micro x accumulation x world (CFG:919-934), world / pp with a pipeline; AutoTP
    // counts every sample tp times, so the scenario's global batch is that over tp.
    out.batch_from_world = BatchFromWorld{micro, accumulation, tp * pp, r.at("gradient_accumulation_steps"),
                                          "train_micro_batch_size_per_gpu x gradient_accumulation_steps x GPUs / (tp x pp)"};
  }

  // ---- run length: ShardMeter's own key (DeepSpeed's config has none) -------------------------------------------
  if (r.has("shardmeter_train_steps")) {
    const long long steps = r.integer("shardmeter_train_steps", 1);
    out.tokens_from_steps = TokensFromSteps{steps, r.at("shardmeter_train_steps"), r.said("shardmeter_train_steps")};
  } else {
    out.notes.push_back("no shardmeter_train_steps: training.tokens is the base scenario's (or --tokens)");
  }

  if (r.has("shardmeter_warmup_steps")) {
    const long long steps = r.integer("shardmeter_warmup_steps", 0);
    out.warmup_from_steps = TokensFromSteps{steps, r.at("shardmeter_warmup_steps"), r.said("shardmeter_warmup_steps")};
  }

  // ---- ZeRO ------------------------------------------------------------------------------------------------------
  long long stage = 0;
  bool overlap = false;
  if (r.has("zero_optimization")) {
    for (const auto& [key, value] : r.find("zero_optimization")->items()) {
      const std::string p = "zero_optimization." + key;
      if (key != "stage" && key != "overlap_comm" && key != "mics_shard_size" && key != "mics_hierarchical_params_gather" &&
          key != "offload_optimizer" && key != "offload_param" && kZeroLeftOut.count(key) == 0)
        r.fail(p, "is not a zero_optimization key the import reads");
    }
    if (r.has("zero_optimization.stage")) stage = r.integer("zero_optimization.stage");
    if (stage > 3) r.fail("zero_optimization.stage", "is not 0 to 3");
    if (r.has("zero_optimization.overlap_comm")) overlap = r.boolean("zero_optimization.overlap_comm");
  }
  read_offload(r, stage, set);
  std::string sharding = stage == 0 ? "none" : stage == 1 ? "zero1" : stage == 2 ? "zero2" : "fsdp";
  if (r.has("zero_optimization.mics_shard_size") && r.integer("zero_optimization.mics_shard_size") > 0) {
    if (stage != 3) r.fail("zero_optimization.mics_shard_size", "needs ZeRO stage 3 (MiCS)");
    sharding = "hsdp";
    set("plan.shard_group", std::to_string(r.integer("zero_optimization.mics_shard_size") * tp),
        "zero_optimization.mics_shard_size");
  }
  set("plan.sharding", sharding, "zero_optimization.stage");
  set("plan.overlap_grad_reduce", overlap ? "true" : "false", "zero_optimization.overlap_comm");
  if (stage == 3) {
    set("plan.overlap_param_gather", "true", "zero_optimization.stage");
    set("plan.reshard_after_forward", "true", "zero_optimization.stage");
  }
  set("plan.tp_comm_overlap", "false", "tensor_parallel.autotp_size");
  set("plan.tp_dgrad_overlap", "false", "tensor_parallel.autotp_size");
  set("plan.stack", "deepspeed", "zero_optimization");
  out.notes.push_back("plan.stack is deepspeed; --set plan.stack=... to cost another stack's efficiencies");

  // ---- precision -------------------------------------------------------------------------------------------------
  const bool bf16 = r.has("bf16.enabled") && r.boolean("bf16.enabled");
  const bool fp16 = r.has("fp16.enabled") && r.boolean("fp16.enabled");
  if (bf16 && fp16) r.fail("fp16.enabled", "is true with bf16.enabled (CFG:834-835)");
  if (!bf16 && !fp16)
    throw ScenarioError(SourceLocation{path, 0, 0}, "bf16.enabled", "", "is required (or fp16.enabled): fp32 "
                                                                      "training is not costed");
  set("training.precision", bf16 ? "bf16" : "fp16", bf16 ? "bf16.enabled" : "fp16.enabled");
  if (bf16)
    out.notes.push_back("bf16.enabled: the config cannot say fp8 (Transformer Engine lives in the model code); "
                        "--set training.precision=fp8 for fp8 GEMMs");

  // ---- DeepSpeed-MoE layer arguments (the export's "shardmeter_moe_layer") ------------------------------------------
  if (r.has("shardmeter_moe_layer")) {
    const std::string p = "shardmeter_moe_layer.";
    for (const auto& [key, value] : r.find("shardmeter_moe_layer")->items())
      if (key != "num_experts" && key != "ep_size" && key != "k" && key != "capacity_factor" && key != "drop_tokens" &&
          key != "expert_ffn_hidden" && key != "moe_blocks")
        r.fail(p + key, "is not a deepspeed.moe.layer.MoE argument the import reads");
    set("model.experts", std::to_string(r.integer(p + "num_experts")), p + "num_experts");
    set("model.top_k", std::to_string(r.integer(p + "k")), p + "k");
    set("model.shared_experts", "0", p + "num_experts");
    set("plan.ep", std::to_string(r.integer(p + "ep_size")), p + "ep_size");
    set("plan.etp", "1", p + "ep_size");
    set("plan.ep_dispatcher", "alltoall", p + "ep_size");
    set("plan.ep_overlap", "false", p + "ep_size");
    set("model.router", "softmax", p + "k");
    const bool drop = r.has(p + "drop_tokens") && r.boolean(p + "drop_tokens");
    set("model.capacity_factor", drop ? fmt::format("{}", r.number(p + "capacity_factor")) : "0", p + "drop_tokens");
    if (r.has(p + "expert_ffn_hidden"))
      set("model.expert_ffn_hidden", std::to_string(r.integer(p + "expert_ffn_hidden")), p + "expert_ffn_hidden");
  }
  return out;
}

}  // namespace shardmeter::cli
