// torchtitan: a TOML job config for torchtitan v0.2.2 (pytorch/torchtitan@73a0e6979dd1, 2026-02-20), the last
// release that reads TOML (main switched to Python config functions on 2026-02-23, commit 9810191: see
// export_torchtitan_py.cpp). Field names from torchtitan/config/job_config.py at that tag; unknown fields are an
// error there (config/manager.py:165-171):
//   [job]        description; custom_config_module = "torchtitan.components.ft.config" for the DiLoCo fields
//   [model]      name = "llama3" ("llama3_ft" under DiLoCo: its train spec has the fragment function), flavor;
//                converters = ["quantize.linear.float8"] for fp8 (components/quantization/float8.py:238)
//   [training]   local_batch_size, global_batch_size, seq_len, steps, mixed_precision_param. Without TorchFT,
//                gradient accumulation = global / (local x dp_replicate x dp_shard) (train.py:196-215); under TorchFT
//                the divisor is also multiplied by the replica groups (components/ft/manager.py:82-86), so
//                global_batch_size is the batch over every island (experiments/ft/torchft.md:64-67)
//   [parallelism] data_parallel_replicate_degree, data_parallel_shard_degree, fsdp_reshard_after_forward,
//                tensor_parallel_degree, pipeline_parallel_degree, pipeline_parallel_schedule,
//                pipeline_parallel_microbatch_size (local_batch_size / it = micro-batches),
//                pipeline_parallel_layers_per_stage, pipeline_parallel_first/last_stage_less_layers
//                (torchtitan_plan.hpp), context_parallel_degree
//   ([training] and [parallelism] come from the field list both torchtitan writers share, torchtitan_plan.hpp)
//   [activation_checkpoint] mode = "none" | "selective" | "full", selective_ac_option = "op"
//   [fault_tolerance] enable, group_size, semi_sync_method = "diloco", and from the custom module sync_steps,
//                should_quantize, fragment_sync_delay, num_fragments (components/ft/config/job_config.py:18-70)
#include <fmt/format.h>

#include "results/export/export_formats.hpp"
#include "results/export/torchtitan_plan.hpp"
#include "results/front/front_picks.hpp"
#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "torchtitan";

void check(const Deployment& p) {
  check_torchtitan_plan(kFormat, p);
  if (p.diloco() && !p.identical_islands)
    throw ExportError(kFormat, "DiLoCo over islands that differ in GPU type, GPUs or GPUs per node: every TorchFT "
                               "replica group runs the same job config");
  if (p.plan().tp > 1 && !p.plan().sequence_parallel)
    throw ExportError(kFormat, "tensor parallelism without sequence parallelism: v0.2.2's TP plan always shards the "
                               "sequence in norms and dropout (torchtitan-py, for main, can switch it off)");
  // parallelize_llama (models/llama3/infra/parallelize.py:148-151): replication without sharding runs DDP, which
  // spans the whole world only.
  if (p.degrees().dp_shard == 1 && p.plan().cp == 1 && p.degrees().dp_replicate > 1 && p.degrees().dp_replicate != p.job_gpus())
    throw ExportError(kFormat, fmt::format("sharding {} with tp {} / pp {}: without FSDP torchtitan replicates with "
                                           "DDP, which \"has not supported > 1D parallelism\"",
                                           p.plan().sharding, p.plan().tp, p.plan().pp));
  if (p.moe()) {
    // ParallelDims (distributed/parallel_dims.py:58-59, 136-157): with EP, ETP is 1 or tp; the sparse mesh
    // dp_replicate x efsdp x ep x etp needs efsdp = dp_shard x cp x tp / (etp x ep) whole. With EP 1 the experts
    // take the dense TP (expert_tensor_parallel_degree has no effect, job_config.py:464-472).
    if (p.plan().ep > 1 && p.plan().etp != 1 && p.plan().etp != p.plan().tp)
      throw ExportError(kFormat, fmt::format("etp {} with tp {} and ep {}: v0.2.2 supports ETP = TP or ETP = 1 only "
                                             "(parallel_dims.py:58-59)", p.plan().etp, p.plan().tp, p.plan().ep));
    if (p.plan().ep == 1 && p.plan().etp != p.plan().tp)
      throw ExportError(kFormat, fmt::format("etp {} with ep 1 and tp {}: without expert parallelism torchtitan "
                                             "shards the experts with the dense TP", p.plan().etp, p.plan().tp));
    if ((p.degrees().dp_shard * p.plan().cp * p.plan().tp) % (p.plan().etp * p.plan().ep) != 0)
      throw ExportError(kFormat, fmt::format("etp {} x ep {} does not divide dp_shard {} x cp {} x tp {}: torchtitan "
                                             "folds the experts inside the FSDP x CP x TP ranks, not over "
                                             "data_parallel_replicate (parallel_dims.py:136-157)",
                                             p.plan().etp, p.plan().ep, p.degrees().dp_shard, p.plan().cp, p.plan().tp));
    if (p.plan().moe_recompute != model::MoeRecompute::none && p.plan().recompute != model::Recompute::full)
      throw ExportError(kFormat, fmt::format("moe_recompute {}: [activation_checkpoint] checkpoints whole blocks "
                                             "(full) or ops by policy (selective), not the routed experts alone",
                                             p.plan().moe_recompute));
    if (p.diloco())
      throw ExportError(kFormat, "DiLoCo with an MoE model: the fragment split under TorchFT is llama3_ft's only");
    if (p.plan().ep_overlap)
      throw ExportError(kFormat, "plan.ep_overlap: v0.2.2 overlaps EP communication only inside the DualPipeV "
                                 "pipeline schedule (pipeline_parallel_expert_parallel_overlap, job_config.py:420-426), "
                                 "not with the 1F1B schedules the plan is costed with");
    if (const auto mm = torchtitan_v0_2_2_model(p); mm && mm->name == "deepseek_v3" && p.plan().cp > 1)
      throw ExportError(kFormat, fmt::format("cp {} with deepseek_v3: its flex attention does not run context "
                                             "parallelism (models/deepseek_v3/model/args.py:101-109)", p.plan().cp));
  }
  if (p.diloco()) {
    if (p.degrees().dp_replicate > 1)
      throw ExportError(kFormat, fmt::format("DiLoCo with sharding {}: under TorchFT each replica group shards with "
                                             "FSDP and data_parallel_replicate_degree must be 1", p.plan().sharding));
    if (p.plan().diloco.outer_bits != 32 && p.plan().diloco.outer_bits != 8)
      throw ExportError(kFormat, fmt::format("{}-bit outer pseudo-gradients: fault_tolerance.should_quantize is on/off "
                                             "(8-bit or 32-bit)", p.plan().diloco.outer_bits));
  }
}

}  // namespace

Exported export_torchtitan(const Deployment& p, const ExportSource& source) {
  check(p);
  Exported out;
  std::string& t = out.text;
  t = export_header_comment(ExportFormat::torchtitan, p, source);
  t += fmt::format("# degrees: data_parallel_shard {} x data_parallel_replicate {} x tp {} x pp {} x cp {} = {} GPUs{}\n",
                   p.degrees().dp_shard, p.degrees().dp_replicate, p.plan().tp, p.plan().pp, p.plan().cp, p.degrees().dp_shard * p.degrees().dp_replicate * p.model_parallel(),
                   p.diloco() ? " per island (one TorchFT replica group each)" : "");
  if (p.moe())
    t += fmt::format("# experts: data_parallel_replicate {} x efsdp {} x ep {} x etp {} x pp {} (parallel_dims.py:136-157)\n",
                     p.degrees().dp_replicate, p.degrees().dp_shard * p.plan().cp * p.plan().tp / (p.plan().ep * p.plan().etp), p.plan().ep, p.plan().etp, p.plan().pp);

  t += "\n[job]\ndescription = " +
       toml_string(fmt::format("shardmeter: {} row {}", source.info->scenario_name, row_number(p.record.row))) + "\n";
  if (p.diloco()) t += "custom_config_module = \"torchtitan.components.ft.config\"  # the DiLoCo fields below\n";

  const auto known = torchtitan_v0_2_2_model(p);
  if (known || p.training().precision == model::Precision::fp8) t += "\n[model]\n";
  if (known) {
    t += fmt::format("name = \"{}\"\nflavor = \"{}\"\n", p.diloco() ? "llama3_ft" : known->name, known->flavor);
    if (const std::string differs = torchtitan_numerics_mismatch(*known, p); !differs.empty()) {
      t += "# " + comment_text(differs) + "\n";
      out.notes.push_back("torchtitan: " + differs);
    }
  } else {
    out.notes.push_back(fmt::format("torchtitan: the model is none of torchtitan's {} flavors: register one with "
                                    "the dimensions of the header's model line and set [model] name and flavor",
                                    p.moe() ? "qwen3 / deepseek_v3" : "llama3"));
  }
  if (p.training().precision == model::Precision::fp8) t += "converters = [\"quantize.linear.float8\"]\n";

  // training.fp8_params: the weights are gathered in fp8 as costed (docs/model.md §2.2); torchtitan spells it in the
  // float8 converter's section (components/quantization/float8.py; torchao Float8LinearConfig), off by default.
  if (p.training().precision == model::Precision::fp8 && p.training().fp8_params)
    t += "\n[quantize.linear.float8]\nenable_fsdp_float8_all_gather = true  # training.fp8_params: FSDP gathers weights "
         "in fp8, as costed\nprecompute_float8_dynamic_scale_for_fsdp = true\n";
  t += "\n[training]\n" + toml_lines(torchtitan_training_fields(TorchtitanTarget::v0_2_2, p));
  t += "\n[parallelism]\n" + toml_lines(torchtitan_parallelism_fields(TorchtitanTarget::v0_2_2, kFormat, p));
  if (const auto warmup = torchtitan_warmup_field(p)) t += "\n[lr_scheduler]\n" + toml_lines({*warmup});

  t += "\n[activation_checkpoint]\n";
  const TorchtitanCheckpointing ac = torchtitan_checkpointing(TorchtitanTarget::v0_2_2, kFormat, p);
  t += "mode = " + toml_string(torchtitan_ac_mode_name(ac.mode)) + (ac.option.empty() && !ac.comment.empty() ? "  # " + ac.comment : "") + "\n";
  if (ac.option == "op") t += "selective_ac_option = \"op\"  # per-op: every second matmul recomputed\n";
  else if (!ac.option.empty()) t += "selective_ac_option = " + toml_string(ac.option) + "  # " + ac.comment + "\n";

  if (p.diloco()) {
    t += "\n[fault_tolerance]\n";
    t += "enable = true\n";
    t += fmt::format("group_size = {}  # one replica group per island; start island k with --fault_tolerance.replica_id=k\n",
                     p.islands.size());
    t += "semi_sync_method = \"diloco\"\n";
    t += fmt::format("sync_steps = {}\n", p.plan().diloco.inner_steps);
    t += fmt::format("should_quantize = {}\n", p.plan().diloco.outer_bits == 8 ? "true" : "false");
    t += fmt::format("fragment_sync_delay = {}\n", p.plan().diloco.overlap_steps);
    t += fmt::format("num_fragments = {}\n", p.plan().diloco.fragments);
    out.notes.push_back("torchtitan: DiLoCo runs one torchtitan job per island under TorchFT: start a lighthouse, "
                        "launch with TRAIN_FILE=torchtitan.experiments.ft.train and give island k "
                        "--fault_tolerance.replica_id=k");
  }
  out.notes.push_back("torchtitan: merge these sections into your job config; optimizer, data and checkpointing are "
                      "not part of the plan");
  return out;
}

}  // namespace shardmeter::results
