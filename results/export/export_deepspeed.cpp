// deepspeed: a DeepSpeed config JSON, pinned to deepspeedai/DeepSpeed v0.16.4 (commit e2dc3eeb1923). Keys and the
// checks they must pass, in deepspeed/runtime/config.py (CFG), runtime/zero/config.py (ZC), runtime/engine.py (ENG)
// and runtime/pipe/engine.py (PIPE) at that tag:
//   train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x world (CFG:919-934), where
//     world is the data-parallel size of the pipeline grid (world / pp) with a PipelineModule and otherwise the
//     whole world (CFG:723-733), AutoTP included: with tensor_parallel.autotp_size > 1 the key is left out and
//     DeepSpeed derives it (CFG:936-979), since micro x accumulation x world counts every sample tp times
//   zero_optimization.stage 0-3 (ZC:77-91), overlap_comm, contiguous_gradients; hsdp is ZeRO-3 with MiCS shard
//     groups, mics_shard_size (ZC:326, ENG:1674-1707); unknown keys inside a section are an error (extra="forbid")
//   bf16.enabled / fp16.enabled, never both (CFG:834-835)
//   tensor_parallel.autotp_size: AutoTP training, ZeRO stages 0-2 (ENG:424-425)
//   pipeline: read by the pipeline engine, ZeRO stages 0-1 only (PIPE:77-78); one stage per rank
// Top-level keys DeepSpeed does not know are ignored (CFG reads known keys with .get): "shardmeter_export" carries
// the header.
#include <string>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "results/markup.hpp"
#include "results/export/export_formats.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "deepspeed";

int zero_stage(const std::string& sharding) {
  if (sharding == "zero1") return 1;
  if (sharding == "zero2") return 2;
  if (sharding == "fsdp" || sharding == "hsdp") return 3;
  return 0;
}

void check(const DeployPlan& p) {
  require_single_uniform_job(kFormat, p);
  if (p.cp > 1)
    throw ExportError(kFormat, fmt::format("context parallelism cp = {}: DeepSpeed has no ring-attention degree "
                                           "(its Ulysses sequence parallelism needs model changes)", p.cp));
  if (p.pp > 1 && zero_stage(p.sharding) >= 2)
    throw ExportError(kFormat, fmt::format("pipeline parallelism (pp = {}) with sharding {}: the pipeline engine "
                                           "supports ZeRO stages 0 and 1 only", p.pp, p.sharding));
  if (p.tp > 1 && zero_stage(p.sharding) == 3)
    throw ExportError(kFormat, fmt::format("tensor parallelism (tp = {}) with sharding {}: AutoTP training supports "
                                           "ZeRO stages 0-2", p.tp, p.sharding));
  if (p.tp > 1 && p.pp > 1)
    throw ExportError(kFormat, "tensor and pipeline parallelism together: AutoTP is not combined with the pipeline engine");
  if (p.interleave > 1)
    throw ExportError(kFormat, fmt::format("interleaved pipeline stages (interleave = {}): the pipeline engine runs one "
                                           "stage per rank", p.interleave));
}

}  // namespace

Exported export_deepspeed(const DeployPlan& p, const ExportSource& source) {
  check(p);
  using json = nlohmann::ordered_json;   // keys in the order written
  Exported out;
  json j;
  j["shardmeter_export"] = export_header_lines(ExportFormat::deepspeed, p, source);
  // The data-parallel size DeepSpeed divides by: world / pp with a pipeline, else the whole world [check() ruled
  // out cp, and tp > 1 leaves the key to DeepSpeed].
  if (p.tp == 1) j["train_batch_size"] = p.global_batch;
  j["train_micro_batch_size_per_gpu"] = p.micro_batch;
  j["gradient_accumulation_steps"] = p.grad_accum;
  json zero = {{"stage", zero_stage(p.sharding)}, {"overlap_comm", p.overlap_grad_reduce}, {"contiguous_gradients", true}};
  if (p.sharding == "hsdp") zero["mics_shard_size"] = p.dp_shard;
  j["zero_optimization"] = zero;
  j["bf16"] = {{"enabled", p.precision == "bf16" || p.precision == "fp8"}};
  j["fp16"] = {{"enabled", p.precision == "fp16"}};
  if (p.tp > 1) {
    j["tensor_parallel"] = {{"autotp_size", p.tp}};
    out.notes.push_back(fmt::format("deepspeed: AutoTP: wrap the model with deepspeed.tp_model_init(model, tp_size={}, "
                                    "dtype=...); train_batch_size is left to DeepSpeed, which counts each sample once "
                                    "per tensor-parallel rank ({} x the global batch of {})",
                                    p.tp, p.tp, p.global_batch));
  }
  if (p.pp > 1)
    j["pipeline"] = {{"stages", p.pp}, {"activation_checkpoint_interval", p.recompute == "full" ? 1 : 0}};
  j["steps_per_print"] = 100;
  if (p.sharding == "hsdp")
    out.notes.push_back(fmt::format("deepspeed: hsdp is ZeRO-3 with MiCS shard groups of {} GPUs: build the model "
                                    "under deepspeed.zero.MiCS_Init", p.dp_shard));
  if (p.pp == 1 && p.recompute != "none")
    out.notes.push_back("deepspeed: recompute " + p.recompute + " is set in the model code (e.g. gradient "
                        "checkpointing), not in the DeepSpeed config");
  if (p.pp > 1 && p.recompute == "selective")
    out.notes.push_back("deepspeed: selective recompute is set in the model code; the pipeline's "
                        "activation_checkpoint_interval is for full recompute");
  if (p.pp > 1) {
    out.notes.push_back(fmt::format("deepspeed: build the model as a PipelineModule(num_stages={})", p.pp));
    // The partition is the model code's (partition_method); say which blocks per rank the plan was costed with.
    std::string ranks;
    bool even = true;
    for (std::int64_t r = 0; r < p.pp; ++r) {
      ranks += (r > 0 ? ", " : "") + std::to_string(p.rank_layers(r));
      even = even && p.rank_layers(r) == p.rank_layers(0);
    }
    if (!even || p.pp_embedding_layers > 0 || p.pp_head_layers > 0)
      out.notes.push_back("deepspeed: partition the PipelineModule so the ranks hold " + ranks +
                          " transformer blocks, as the plan was costed (docs/model.md §5.4; "
                          "partition_method 'type:transformer|embedding' counts both embeddings as layers)");
  }
  if (p.precision == "fp8")
    out.notes.push_back("deepspeed: fp8 GEMMs need Transformer Engine in the model; the config enables bf16");
  out.text = json_text(j);
  return out;
}

}  // namespace shardmeter::results
