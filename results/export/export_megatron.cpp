// megatron: Megatron-LM arguments as a bash array, to splice into a pretrain_gpt.py launch:
//   source plan.megatron.sh && torchrun ... pretrain_gpt.py "${MEGATRON_ARGS[@]}" <data, tokenizer, optimizer arguments>
// Pinned to NVIDIA/Megatron-LM core_v0.19.0 (commit 5be9626709af). Names and the checks they must pass, in
// megatron/training/arguments.py (A) and megatron/core/transformer/transformer_config.py (TC) at that tag:
//   model     --num-layers, --hidden-size, --num-attention-heads, --group-query-attention --num-query-groups,
//             --ffn-hidden-size, --kv-channels, --seq-length, --max-position-embeddings, --position-embedding-type
//             {learned_absolute, rope}, --swiglu, --normalization {LayerNorm, RMSNorm},
//             --untie-embeddings-and-output-weights, --disable-bias-linear (A:2299-2377, TC:65-249)
//   layout    --tensor-model-parallel-size, --pipeline-model-parallel-size, --context-parallel-size,
//             --sequence-parallel, --num-virtual-stages-per-pipeline-rank (A:2961-2963), and the model's pipeline
//             split (docs/model.md §5.4): --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers
//             (A:2942-2946; TC:1988-2062: the remaining layers split evenly over the remaining stages),
//             --account-for-embedding/loss-in-pipeline-split (TC:2064-2109), or --pipeline-model-parallel-layout
//             (A:2950-2957, A:894-918; TC:104-127 and validate_layer_layout in pipeline_parallel_layer_layout.py)
//   batch     --micro-batch-size, --global-batch-size (global % (micro x dp) == 0, num_microbatches_calculator.py)
//   memory    --recompute-granularity {full, selective}, --recompute-method uniform, --recompute-num-layers 1,
//             --use-distributed-optimizer, --use-megatron-fsdp with --data-parallel-sharding-strategy
//             {optim_grads, optim_grads_params} and --ckpt-format fsdp_dtensor (A:1100-1147, A:1620-1621)
//   overlap   --overlap-grad-reduce, --overlap-param-gather (needs the former and a distributed optimizer,
//             A:990-995), --tp-comm-overlap (needs --sequence-parallel, A:1401-1402)
//   numerics  --bf16, --fp16, --fp8-format hybrid
// TP or CP without Megatron-FSDP on GPUs older than Blackwell needs CUDA_DEVICE_MAX_CONNECTIONS=1 (A:1413-1439); with
// Megatron-FSDP it must not be 1 (A:1143-1144): the file exports it when needed.
#include <string>

#include <fmt/format.h>

#include "results/export/export_formats.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "megatron";

// How Megatron-Core is told the model's pipeline split (model/pipeline_stages.hpp, docs/model.md §5.4), in the order
// of preference: nothing (even), --decoder-first/last-pipeline-num-layers (the plan's explicit counts),
// --account-for-embedding/loss-in-pipeline-split (the balanced split with weights 0 or 1 that divides evenly, which
// is Megatron's own rule), else --pipeline-model-parallel-layout, one '|'-separated entry per virtual stage, virtual
// stage i on rank i % pp (TC:104-127), which states any split.
struct MegatronSplit {
  std::int64_t first = 0, last = 0;                  // explicit counts (0: not set)
  bool account_embedding = false, account_loss = false;
  std::string layout;                                // --pipeline-model-parallel-layout, or empty
};

std::string stage_text(std::int64_t blocks) {
  if (blocks <= 0) return "";
  return blocks == 1 ? "t" : fmt::format("t*{}", blocks);
}

MegatronSplit megatron_split(const DeployPlan& p) {
  MegatronSplit s;
  if (p.pp <= 1) return s;
  if (p.explicit_stages()) {
    s.first = p.pp_first_stage_layers;
    s.last = p.pp_last_stage_layers;
    return s;
  }
  const std::int64_t e = p.pp_embedding_layers, h = p.pp_head_layers, stages = p.pp * p.interleave;
  const std::int64_t effective = p.model.layers + e + h;
  if (effective % stages == 0 && e <= 1 && h <= 1) {
    s.account_embedding = e == 1;
    s.account_loss = h == 1;
    return s;
  }
  const std::int64_t base = effective / stages, extra = effective % stages;
  for (std::int64_t i = 0; i < stages; ++i) {
    std::int64_t blocks = base + (i < extra ? 1 : 0);
    if (i == 0) blocks -= e;
    if (i == stages - 1) blocks -= h;
    if (i > 0) s.layout += '|';
    if (i == 0) s.layout += 'E';
    s.layout += stage_text(blocks);
    if (i == stages - 1) s.layout += 'L';
  }
  return s;
}

bool blackwell(const std::string& gpu) { return gpu == "b200" || gpu == "gb200"; }

void check(const DeployPlan& p) {
  require_single_uniform_job(kFormat, p);
  if (p.sharding == "hsdp")
    throw ExportError(kFormat, "sharding hsdp (shard within groups, replicate across them): no verified Megatron-LM "
                               "argument set expresses it (use torchtitan or plan-json)");
  if (p.model.position_embedding == "alibi")
    throw ExportError(kFormat, "ALiBi position embeddings: --position-embedding-type has learned_absolute, rope, yarn, "
                               "mrope, relative and none");
  if (p.model.kv_heads % p.tp != 0 && p.tp % p.model.kv_heads != 0)
    throw ExportError(kFormat, fmt::format("{} key/value heads on tp {}: Megatron needs one to divide the other",
                                           p.model.kv_heads, p.tp));
  if (p.cp > 1 && p.model.seq_len % (2 * p.cp) != 0)
    throw ExportError(kFormat, fmt::format("sequence length {} with cp {}: Megatron needs it divisible by 2 x cp",
                                           p.model.seq_len, p.cp));
}

}  // namespace

Exported export_megatron(const DeployPlan& p, const ExportSource& source) {
  check(p);
  const MegatronSplit split = megatron_split(p);
  const bool fsdp = p.sharding == "zero2" || p.sharding == "fsdp";
  Exported out;
  std::string& t = out.text;
  t = export_header_comment(ExportFormat::megatron, p, source);
  t += fmt::format("# world size {} = tp {} x pp {} x cp {} x dp {}; {} micro-batches of {} per replica per step\n",
                   p.total_gpus, p.tp, p.pp, p.cp, p.data_parallel, p.grad_accum, p.micro_batch);
  t += fmt::format("# vocabulary: {} tokens, set by your tokenizer arguments\n", p.model.vocab);
  if ((p.tp > 1 || p.cp > 1) && !fsdp && !blackwell(p.islands.front().gpu))
    t += "export CUDA_DEVICE_MAX_CONNECTIONS=1  # TP/CP communication overlap on GPUs before Blackwell\n";
  t += "MEGATRON_ARGS=(\n";
  const auto arg = [&](std::string_view line) { t += "  " + std::string(line) + "\n"; };
  const DeployModel& m = p.model;
  arg(fmt::format("--num-layers {}", m.layers));
  arg(fmt::format("--hidden-size {}", m.hidden));
  arg(fmt::format("--num-attention-heads {}", m.heads));
  if (m.kv_heads != m.heads) {
    arg("--group-query-attention");
    arg(fmt::format("--num-query-groups {}", m.kv_heads));
  }
  arg(fmt::format("--ffn-hidden-size {}", m.ffn_hidden));
  if (m.head_dim * m.heads != m.hidden || m.hidden % m.heads != 0) arg(fmt::format("--kv-channels {}", m.head_dim));
  arg(fmt::format("--seq-length {}", m.seq_len));
  arg(fmt::format("--max-position-embeddings {}", m.seq_len));
  arg(fmt::format("--position-embedding-type {}", m.position_embedding == "rope" ? "rope" : "learned_absolute"));
  if (m.ffn_type == "swiglu") arg("--swiglu");
  arg(fmt::format("--normalization {}", m.norm == "rmsnorm" ? "RMSNorm" : "LayerNorm"));
  if (!m.tied_embeddings) arg("--untie-embeddings-and-output-weights");
  if (!m.bias) arg("--disable-bias-linear");

  arg(fmt::format("--tensor-model-parallel-size {}", p.tp));
  arg(fmt::format("--pipeline-model-parallel-size {}", p.pp));
  arg(fmt::format("--context-parallel-size {}", p.cp));
  // The layout names the virtual stages itself (A:894-918: not together with the virtual-stage count).
  if (!split.layout.empty()) {
    arg(fmt::format("--pipeline-model-parallel-layout '{}'", split.layout));
  } else if (p.interleave > 1) {
    arg(fmt::format("--num-virtual-stages-per-pipeline-rank {}", p.interleave));
  }
  if (split.first > 0) arg(fmt::format("--decoder-first-pipeline-num-layers {}", split.first));
  if (split.last > 0) arg(fmt::format("--decoder-last-pipeline-num-layers {}", split.last));
  if (split.account_embedding) arg("--account-for-embedding-in-pipeline-split");
  if (split.account_loss) arg("--account-for-loss-in-pipeline-split");
  const bool sequence_parallel = p.sequence_parallel && p.tp > 1;
  if (sequence_parallel) arg("--sequence-parallel");
  arg(fmt::format("--micro-batch-size {}", p.micro_batch));
  arg(fmt::format("--global-batch-size {}", p.global_batch));
  if (p.recompute == "selective") {
    arg("--recompute-granularity selective");
  } else if (p.recompute == "full") {
    arg("--recompute-granularity full");
    arg("--recompute-method uniform");
    arg("--recompute-num-layers 1");
  }
  if (p.sharding == "zero1") arg("--use-distributed-optimizer");
  if (fsdp) {
    arg("--use-megatron-fsdp");
    arg("--use-distributed-optimizer");
    arg(fmt::format("--data-parallel-sharding-strategy {}", p.sharding == "fsdp" ? "optim_grads_params" : "optim_grads"));
    arg("--no-gradient-accumulation-fusion");
    arg("--ckpt-format fsdp_dtensor");
  }
  const bool grad_reduce = p.overlap_grad_reduce && p.data_parallel > 1;
  if (grad_reduce) arg("--overlap-grad-reduce");
  if (grad_reduce && p.overlap_param_gather && p.sharding != "none") arg("--overlap-param-gather");
  if (p.tp_comm_overlap && sequence_parallel) arg("--tp-comm-overlap");
  if (p.precision == "bf16") arg("--bf16");
  if (p.precision == "fp16") arg("--fp16");
  if (p.precision == "fp8") {
    arg("--bf16");
    arg("--fp8-format hybrid");
  }
  t += ")\n";
  out.notes.push_back("megatron: add the data, tokenizer and optimizer arguments; the array holds the model, the "
                      "parallel layout and the batch");
  return out;
}

}  // namespace shardmeter::results
