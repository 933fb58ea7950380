// deepspeed: a DeepSpeed config JSON. Keys from DeepSpeed's config reference (deepspeed.ai/docs/config-json):
// train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x data-parallel size,
// zero_optimization.stage (0 none, 1 optimizer states, 2 + gradients, 3 + parameters), overlap_comm, bf16.enabled,
// fp16.enabled; "tensor_parallel": {"autotp_size": N} is AutoTP training (deepspeed.ai/tutorials/autotp-training,
// ZeRO stages 0-2); "pipeline": {"stages", "activation_checkpoint_interval"} is read by the pipeline engine
// (deepspeed/runtime/config.py get_pipeline_config), which allows ZeRO stages 0 and 1 only.
#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "results/escape.hpp"
#include "results/export/export_formats.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "deepspeed";

int zero_stage(const std::string& sharding) {
  if (sharding == "zero1") return 1;
  if (sharding == "zero2") return 2;
  if (sharding == "fsdp") return 3;
  return 0;
}

void check(const DeployPlan& p) {
  require_single_uniform_job(kFormat, p);
  if (p.sharding == "hsdp")
    throw ExportError(kFormat, "sharding hsdp (shard within groups, replicate across them): ZeRO shards over the whole "
                               "data-parallel group");
  if (p.cp > 1) throw ExportError(kFormat, fmt::format("context parallelism cp = {}: the config has no such degree", p.cp));
  if (p.pp > 1 && zero_stage(p.sharding) >= 2)
    throw ExportError(kFormat, fmt::format("pipeline parallelism (pp = {}) with sharding {}: the pipeline engine "
                                           "supports ZeRO stages 0 and 1 only", p.pp, p.sharding));
  if (p.tp > 1 && zero_stage(p.sharding) == 3)
    throw ExportError(kFormat, fmt::format("tensor parallelism (tp = {}) with fsdp: AutoTP training supports ZeRO "
                                           "stages 0-2", p.tp));
  if (p.tp > 1 && p.pp > 1)
    throw ExportError(kFormat, "tensor and pipeline parallelism together: AutoTP is not combined with the pipeline engine");
  if (p.interleave > 1)
    throw ExportError(kFormat, fmt::format("interleaved pipeline stages (interleave = {}): the pipeline engine runs one "
                                           "stage per rank", p.interleave));
}

}  // namespace

Exported export_deepspeed(const DeployPlan& p, const ExportSource& /*source*/) {
  check(p);
  using json = nlohmann::ordered_json;   // keys in the order written
  Exported out;
  // DeepSpeed's data-parallel size is world / (tp x pp) [check() ruled out cp].
  json j;
  j["train_batch_size"] = p.global_batch;
  j["train_micro_batch_size_per_gpu"] = p.micro_batch;
  j["gradient_accumulation_steps"] = p.grad_accum;
  const bool overlap = p.scenario ? p.scenario->plan.overlap_grad_reduce : true;
  j["zero_optimization"] = {{"stage", zero_stage(p.sharding)}, {"overlap_comm", overlap}, {"contiguous_gradients", true}};
  j["bf16"] = {{"enabled", p.precision == "bf16" || p.precision == "fp8"}};
  j["fp16"] = {{"enabled", p.precision == "fp16"}};
  if (p.tp > 1) j["tensor_parallel"] = {{"autotp_size", p.tp}};
  if (p.pp > 1)
    j["pipeline"] = {{"stages", p.pp}, {"activation_checkpoint_interval", p.recompute == "full" ? 1 : 0}};
  j["steps_per_print"] = 100;
  if (p.pp == 1 && p.recompute != "none")
    out.notes.push_back("deepspeed: recompute " + p.recompute + " is set in the model code (e.g. gradient "
                        "checkpointing), not in the DeepSpeed config");
  if (p.pp > 1 && p.recompute == "selective")
    out.notes.push_back("deepspeed: selective recompute is set in the model code; the pipeline's "
                        "activation_checkpoint_interval is for full recompute");
  if (p.pp > 1)
    out.notes.push_back(fmt::format("deepspeed: build the model as a PipelineModule(num_stages={})", p.pp));
  if (p.precision == "fp8")
    out.notes.push_back("deepspeed: fp8 GEMMs need Transformer Engine in the model; the config enables bf16");
  out.text = json_text(j);
  return out;
}

}  // namespace shardmeter::results
