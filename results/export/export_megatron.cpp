// megatron: Megatron-LM command-line arguments as a bash array, to splice into a pretrain_gpt.py launch:
//   source plan.megatron.sh && torchrun ... pretrain_gpt.py "${MEGATRON_ARGS[@]}" <model and data arguments>
// Argument names from NVIDIA/Megatron-LM megatron/training/arguments.py (commit
// 000c4ac24f61159c138b0975def722c65245983c): --tensor-model-parallel-size, --pipeline-model-parallel-size,
// --context-parallel-size, --num-layers-per-virtual-pipeline-stage, --sequence-parallel, --micro-batch-size,
// --global-batch-size, --seq-length, --recompute-granularity {full,selective}, --recompute-method {uniform,block},
// --recompute-num-layers, --use-distributed-optimizer, --use-megatron-fsdp, --data-parallel-sharding-strategy
// {no_shard,optim,optim_grads,optim_grads_params}, --overlap-grad-reduce, --overlap-param-gather,
// --tp-comm-overlap, --bf16, --fp16, --fp8-format. Megatron-FSDP's required companions (--no-gradient-accumulation-fusion,
// --ckpt-format fsdp_dtensor) follow docs/discussions/megatron-fsdp-user-guide.
#include <fmt/format.h>

#include "results/export/export_formats.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "megatron";

void check(const DeployPlan& p) {
  require_single_uniform_job(kFormat, p);
  if (p.sharding == "hsdp")
    throw ExportError(kFormat, "sharding hsdp (shard within groups, replicate across them): no verified Megatron-LM "
                               "argument set expresses it (use torchtitan or plan-json)");
  if (p.interleave > 1 && p.layers % (p.pp * p.interleave) != 0)
    throw ExportError(kFormat, fmt::format("interleave {} with {} layers on {} stages: "
                                           "--num-layers-per-virtual-pipeline-stage needs layers divisible by pp x v",
                                           p.interleave, p.layers, p.pp));
}

}  // namespace

Exported export_megatron(const DeployPlan& p, const ExportSource& source) {
  check(p);
  Exported out;
  std::string& t = out.text;
  t = export_header_comment(p, source);
  t += fmt::format("# world size {} = tp {} x pp {} x cp {} x dp {}; {} micro-batches of {} per replica per step\n",
                   p.total_gpus, p.tp, p.pp, p.cp, p.data_parallel, p.grad_accum, p.micro_batch);
  t += "MEGATRON_ARGS=(\n";
  const auto arg = [&](std::string_view line) { t += "  " + std::string(line) + "\n"; };
  arg(fmt::format("--tensor-model-parallel-size {}", p.tp));
  arg(fmt::format("--pipeline-model-parallel-size {}", p.pp));
  arg(fmt::format("--context-parallel-size {}", p.cp));
  if (p.interleave > 1) arg(fmt::format("--num-layers-per-virtual-pipeline-stage {}", p.layers / (p.pp * p.interleave)));
  if (p.sequence_parallel && p.tp > 1) arg("--sequence-parallel");
  arg(fmt::format("--micro-batch-size {}", p.micro_batch));
  arg(fmt::format("--global-batch-size {}", p.global_batch));
  arg(fmt::format("--seq-length {}", p.seq_len));
  if (p.recompute == "selective") {
    arg("--recompute-granularity selective");
  } else if (p.recompute == "full") {
    arg("--recompute-granularity full");
    arg("--recompute-method uniform");
    arg("--recompute-num-layers 1");
  }
  const bool fsdp = p.sharding == "zero2" || p.sharding == "fsdp";
  if (p.sharding == "zero1") arg("--use-distributed-optimizer");
  if (fsdp) {
    arg("--use-megatron-fsdp");
    arg("--use-distributed-optimizer");
    arg(fmt::format("--data-parallel-sharding-strategy {}", p.sharding == "fsdp" ? "optim_grads_params" : "optim_grads"));
    arg("--no-gradient-accumulation-fusion");
    arg("--ckpt-format fsdp_dtensor");
  }
  if (p.scenario) {
    if (p.scenario->plan.overlap_grad_reduce && p.data_parallel > 1) arg("--overlap-grad-reduce");
    if (p.scenario->plan.overlap_param_gather && p.sharding != "none" && p.data_parallel > 1) arg("--overlap-param-gather");
    if (p.scenario->plan.tp_comm_overlap && p.tp > 1) arg("--tp-comm-overlap");
  } else {
    t += "  # overlap flags unknown: the scenario could not be rebuilt from the front file\n";
    out.notes.push_back("megatron: --overlap-grad-reduce / --overlap-param-gather / --tp-comm-overlap left out: the "
                        "scenario could not be rebuilt from the front file");
  }
  if (p.precision == "bf16") arg("--bf16");
  if (p.precision == "fp16") arg("--fp16");
  if (p.precision == "fp8") {
    arg("--bf16");
    arg("--fp8-format hybrid");
  }
  t += ")\n";
  out.notes.push_back("megatron: add the model (--num-layers, --hidden-size, ...), data, tokenizer and optimizer "
                      "arguments; the array holds the parallel layout and batch only");
  return out;
}

}  // namespace shardmeter::results
