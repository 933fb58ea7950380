// torchtitan: a TOML job config. Field names follow torchtitan's JobConfig dataclasses
// (pytorch/torchtitan, torchtitan/config/job_config.py at commit 000204a4a8bf3d0f31adc44fc29855fbb6ea13d8):
//   [training]   local_batch_size ("per-device batch size"), global_batch_size (gradient accumulation makes up
//                the difference to local_batch_size x data-parallel degree), seq_len, mixed_precision_param
//   [parallelism] data_parallel_replicate_degree, data_parallel_shard_degree, fsdp_reshard_after_forward,
//                tensor_parallel_degree, pipeline_parallel_degree, pipeline_parallel_schedule,
//                pipeline_parallel_microbatch_size (local_batch_size / microbatch = microbatches),
//                pipeline_parallel_layers_per_stage, context_parallel_degree
//   [activation_checkpoint] mode = "none" | "selective" | "full", selective_ac_option
//   [fault_tolerance] enable, group_size, semi_sync_method = "diloco", sync_steps, should_quantize,
//                fragment_sync_delay (TorchFT DiLoCo, one replica group per island)
//   [model]      converters = ["float8"] for fp8
#include <fmt/format.h>

#include "results/escape.hpp"
#include "results/export/export_formats.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "torchtitan";


void check(const DeployPlan& p) {
  if (p.multi_island() && !p.diloco())
    throw ExportError(kFormat, fmt::format("a synchronous job across {} islands: torchtitan's job config describes one "
                                           "device mesh with a uniform batch split, not islands joined by a WAN "
                                           "(use plan-json or torchrun)", p.islands.size()));
  if (p.diloco() && !p.identical_islands)
    throw ExportError(kFormat, "DiLoCo over islands that differ in GPU type, GPUs or GPUs per node: every TorchFT "
                               "replica group runs the same job config");
  if (p.sharding == "zero1")
    throw ExportError(kFormat, "sharding zero1 (optimizer-state-only sharding): torchtitan shards with FSDP2 "
                               "(data_parallel_shard_degree), which also shards parameters and gradients");
  if (p.precision == "fp16")
    throw ExportError(kFormat, "precision fp16: training.mixed_precision_param takes bfloat16 or float32");
  if (p.tp > 1 && !p.sequence_parallel)
    throw ExportError(kFormat, "tensor parallelism without sequence parallelism: torchtitan's TP plan always shards "
                               "the sequence in norms and dropout");
  if (p.interleave > 1 && p.pp == 1)
    throw ExportError(kFormat, "interleave > 1 without pipeline parallelism");
  if (p.diloco()) {
    if (!p.scenario)
      throw ExportError(kFormat, "DiLoCo fragments and overlap are not in the front file's columns and the scenario "
                                 "could not be rebuilt from it");
    if (p.scenario->plan.diloco.fragments > 1)
      throw ExportError(kFormat, fmt::format("Streaming DiLoCo with {} fragments: the job config sets no fragment count",
                                             p.scenario->plan.diloco.fragments));
    if (p.diloco_outer_bits != 32 && p.diloco_outer_bits != 8)
      throw ExportError(kFormat, fmt::format("{}-bit outer pseudo-gradients: fault_tolerance.should_quantize is on/off "
                                             "(8-bit or 32-bit)", p.diloco_outer_bits));
  }
}

}  // namespace

Exported export_torchtitan(const DeployPlan& p, const ExportSource& source) {
  check(p);
  Exported out;
  std::string& t = out.text;
  t = export_header_comment(p, source);
  t += fmt::format("# degrees: data_parallel_shard {} x data_parallel_replicate {} x tp {} x pp {} x cp {} = {} GPUs{}\n",
                   p.dp_shard, p.dp_replicate, p.tp, p.pp, p.cp, p.dp_shard * p.dp_replicate * p.model_parallel,
                   p.diloco() ? " per island (one TorchFT replica group each)" : "");
  t += "\n[job]\ndescription = " +
       toml_string(fmt::format("shardmeter: {} row {}", source.info->scenario_name, p.row)) + "\n";
  if (p.precision == "fp8") t += "\n[model]\nconverters = [\"float8\"]\n";

  // With pipeline parallelism the whole per-replica batch is the local batch, split into microbatches of
  // micro_batch; without it each step accumulates gradients over local batches of micro_batch.
  const std::int64_t local = p.pp > 1 ? p.batch_per_job / p.data_parallel : p.micro_batch;
  t += "\n[training]\n";
  t += fmt::format("local_batch_size = {}\n", local);
  t += fmt::format("global_batch_size = {}\n", p.batch_per_job);
  t += fmt::format("seq_len = {}\n", p.seq_len);
  t += "mixed_precision_param = \"bfloat16\"\n";

  t += "\n[parallelism]\n";
  t += fmt::format("data_parallel_replicate_degree = {}\n", p.dp_replicate);
  t += fmt::format("data_parallel_shard_degree = {}\n", p.dp_shard);
  if (p.sharding == "zero2")
    t += "fsdp_reshard_after_forward = \"never\"  # ZeRO-2: parameters stay gathered from forward to backward\n";
  t += fmt::format("tensor_parallel_degree = {}\n", p.tp);
  t += fmt::format("pipeline_parallel_degree = {}\n", p.pp);
  if (p.pp > 1) {
    t += fmt::format("pipeline_parallel_schedule = {}\n", p.interleave > 1 ? "\"Interleaved1F1B\"" : "\"1F1B\"");
    t += fmt::format("pipeline_parallel_microbatch_size = {}\n", p.micro_batch);
    if (p.layers % (p.pp * p.interleave) == 0)
      t += fmt::format("pipeline_parallel_layers_per_stage = {}\n", p.layers / (p.pp * p.interleave));
  }
  t += fmt::format("context_parallel_degree = {}\n", p.cp);

  t += "\n[activation_checkpoint]\n";
  t += "mode = " + toml_string(p.recompute) + "\n";
  if (p.recompute == "selective") t += "selective_ac_option = \"op\"  # per-op: recompute attention, keep matmul outputs\n";

  if (p.diloco()) {
    t += "\n[fault_tolerance]\n";
    t += "enable = true\n";
    t += fmt::format("group_size = {}  # one replica group per island; start island k with --fault_tolerance.replica_id=k\n",
                     p.islands.size());
    t += "semi_sync_method = \"diloco\"\n";
    t += fmt::format("sync_steps = {}\n", p.diloco_inner_steps);
    t += fmt::format("should_quantize = {}\n", p.diloco_outer_bits == 8 ? "true" : "false");
    t += fmt::format("fragment_sync_delay = {}\n", p.scenario->plan.diloco.overlap_steps);
    out.notes.push_back("torchtitan: DiLoCo runs one torchtitan job per island under TorchFT; start a lighthouse and "
                        "give island k --fault_tolerance.replica_id=k");
  }
  out.notes.push_back("torchtitan: merge these sections into your job config; [model] name/flavor, optimizer, data and "
                      "steps are not part of the plan");
  return out;
}

}  // namespace shardmeter::results
