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
// Mixture of experts: DeepSpeed-MoE's experts, top-k, EP degree and capacity are arguments of
// deepspeed.moe.layer.MoE(hidden_size, expert, num_experts, ep_size, k, capacity_factor, drop_tokens, ...) in the
// model code (moe/layer.py:38-53), not config keys. The file carries them under "shardmeter_moe_layer", which
// DeepSpeed ignores, for the model code and the replay: num_experts % ep_size == 0 (moe/layer.py:59), ep_size
// divides world / pp (utils/groups.py:250-258), no ZeRO-3 (ENG:1675 "MoE not supported with Stage 3"). Refused:
// what its TopKGate / MOELayer cannot run as the plan is costed: shared experts (its use_residual is PR-MoE's
// residual expert with a learned mix, not an always-on expert), the sigmoid router (TopKGate scores with softmax,
// moe/sharded_moe.py), expert tensor parallelism, DeepEP dispatch and overlapped all-to-alls (MOELayer runs its own
// blocking _AllToAll), and plan.moe_recompute (model code).
#include <string>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "results/markup.hpp"
#include "results/export/export_formats.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "deepspeed";

int zero_stage(model::Sharding sharding) {
  switch (sharding) {
    case model::Sharding::none: return 0;
    case model::Sharding::zero1: return 1;
    case model::Sharding::zero2: return 2;
    case model::Sharding::fsdp:
    case model::Sharding::hsdp: return 3;
  }
  return 0;
}

// bf16 / fp16 sections: DeepSpeed's fp8 runs on bf16 (Transformer Engine in the model, a note says so).
bool bf16_enabled(model::Precision precision) {
  switch (precision) {
    case model::Precision::bf16:
    case model::Precision::fp8: return true;
    case model::Precision::fp16: return false;
  }
  return false;
}

void check(const Deployment& p) {
  require_single_uniform_job(kFormat, p);
  if (p.plan().tp_comm_overlap && p.plan().tp > 1)
    throw ExportError(kFormat, "tp_comm_overlap true: DeepSpeed's AutoTP has no overlap of its TP collectives with "
                               "the GEMMs, so the plan was costed faster than DeepSpeed would run it");
  if (p.plan().tp_dgrad_overlap && p.plan().tp > 1)
    throw ExportError(kFormat, "tp_dgrad_overlap true (Megatron's asynchronous column-parallel backward, docs/model.md "
                               "§4.4): DeepSpeed has no switch that runs it, so the plan was costed faster than "
                               "DeepSpeed would run it");
  // ZeRO-Offload (docs/model.md §7.16); activation offload is refused for every format but Megatron (export_plan).
  const double offload = p.plan().optimizer_offload_fraction;
  if (offload > 0 && offload < 1 && zero_stage(p.plan().sharding) != 3)
    throw ExportError(kFormat, fmt::format("optimizer_offload_fraction {}: a partial optimizer offload "
                                           "(offload_optimizer.ratio) is ZeRO-3's only; use 1 or sharding fsdp",
                                           offload));
  if (zero_stage(p.plan().sharding) == 3 && !p.plan().reshard_after_forward)
    throw ExportError(kFormat, "reshard_after_forward false: ZeRO-3 re-fetches partitioned parameters in backward "
                               "(stage3_max_reuse_distance only caches them by distance); use sharding zero2");
  if (p.plan().sequence_parallel && p.plan().tp > 1)
    throw ExportError(kFormat, fmt::format("sequence parallelism with tp = {}: AutoTP keeps the norm and dropout "
                                           "activations whole on every tensor-parallel rank, so the plan was costed "
                                           "with less activation memory than DeepSpeed would use (found by the import "
                                           "round trip, docs/import.md)", p.plan().tp));
  if (p.plan().cp > 1)
    throw ExportError(kFormat, fmt::format("context parallelism cp = {}: DeepSpeed has no ring-attention degree "
                                           "(its Ulysses sequence parallelism needs model changes)", p.plan().cp));
  if (p.plan().pp > 1 && zero_stage(p.plan().sharding) >= 2)
    throw ExportError(kFormat, fmt::format("pipeline parallelism (pp = {}) with sharding {}: the pipeline engine "
                                           "supports ZeRO stages 0 and 1 only", p.plan().pp, p.plan().sharding));
  if (p.plan().tp > 1 && zero_stage(p.plan().sharding) == 3)
    throw ExportError(kFormat, fmt::format("tensor parallelism (tp = {}) with sharding {}: AutoTP training supports "
                                           "ZeRO stages 0-2", p.plan().tp, p.plan().sharding));
  if (p.plan().tp > 1 && p.plan().pp > 1)
    throw ExportError(kFormat, "tensor and pipeline parallelism together: AutoTP is not combined with the pipeline engine");
  if (p.moe()) {
    const model::ModelSpec& m = p.model();
    const auto refuse = [](const std::string& why) { throw ExportError(kFormat, "DeepSpeed-MoE with " + why); };
    if (zero_stage(p.plan().sharding) == 3) refuse(fmt::format("sharding {}: \"MoE not supported with Stage 3\" "
                                                        "(runtime/engine.py:1675)", p.plan().sharding));
    if (m.moe.shared_experts > 0) refuse(fmt::format("{} shared experts: deepspeed.moe.layer.MoE has no always-on expert "
                                                 "(use_residual is PR-MoE's mixed residual expert)", m.moe.shared_experts));
    if (!p.extras_known()) refuse("a router and capacity factor no column holds, and the row's scenario could not be "
                                "rebuilt from the front file");
    if (m.moe.router != model::MoeRouter::softmax) refuse(fmt::format("the {} router: TopKGate scores with softmax", m.moe.router));
    if (p.plan().etp > 1) refuse(fmt::format("etp {}: the experts are not tensor-parallel here", p.plan().etp));
    if (p.plan().ep_dispatcher == model::EpDispatcher::deepep) refuse("DeepEP dispatch: MOELayer runs its own NCCL all-to-all");
    if (p.plan().ep_overlap) refuse("plan.ep_overlap: MOELayer's all-to-alls block the computation");
    if (p.plan().moe_recompute != model::MoeRecompute::none)
      refuse(fmt::format("plan.moe_recompute {}: recompute lives in the model code", p.plan().moe_recompute));
    if (p.mla()) refuse("multi-head latent attention: no DeepSpeed module or key for it");
  }
  if (const std::string beyond = p.recompute_modules_beyond_megatron_default(); !beyond.empty())
    throw ExportError(kFormat, "plan.recompute_modules " + beyond + ": DeepSpeed has no per-module recompute key "
                               "(activation checkpointing wraps what the model code passes it)");
  if (p.plan().interleave > 1)
    throw ExportError(kFormat, fmt::format("interleaved pipeline stages (interleave = {}): the pipeline engine runs one "
                                           "stage per rank", p.plan().interleave));
}

}  // namespace

Exported export_deepspeed(const Deployment& p, const ExportSource& source) {
  check(p);
  using json = nlohmann::ordered_json;   // keys in the order written
  Exported out;
  json j;
  j["shardmeter_export"] = export_header_lines(ExportFormat::deepspeed, p, source);
  // The data-parallel size DeepSpeed divides by: world / pp with a pipeline, else the whole world [check() ruled
  // out cp, and tp > 1 leaves the key to DeepSpeed].
  if (p.plan().tp == 1) j["train_batch_size"] = p.training().global_batch;
  j["train_micro_batch_size_per_gpu"] = p.training().micro_batch;
  j["gradient_accumulation_steps"] = p.grad_accum();
  json zero = {{"stage", zero_stage(p.plan().sharding)}, {"overlap_comm", p.plan().overlap_grad_reduce}, {"contiguous_gradients", true}};
  if (p.plan().sharding == model::Sharding::hsdp) zero["mics_shard_size"] = p.degrees().dp_shard;
  if (p.plan().optimizer_offload_fraction > 0) {  // ZeRO-Offload (docs/model.md §7.16)
    zero["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
    if (p.plan().optimizer_offload_fraction < 1) zero["offload_optimizer"]["ratio"] = p.plan().optimizer_offload_fraction;
  }
  j["zero_optimization"] = zero;
  j["bf16"] = {{"enabled", bf16_enabled(p.training().precision)}};
  j["fp16"] = {{"enabled", p.training().precision == model::Precision::fp16}};
  if (p.plan().tp > 1) {
    j["tensor_parallel"] = {{"autotp_size", p.plan().tp}};
    out.notes.push_back(fmt::format("deepspeed: AutoTP: wrap the model with deepspeed.tp_model_init(model, tp_size={}, "
                                    "dtype=...); train_batch_size is left to DeepSpeed, which counts each sample once "
                                    "per tensor-parallel rank ({} x the global batch of {})",
                                    p.plan().tp, p.plan().tp, p.training().global_batch));
  }
  if (p.plan().pp > 1)
    j["pipeline"] = {{"stages", p.plan().pp}, {"activation_checkpoint_interval", p.plan().recompute == model::Recompute::full ? 1 : 0}};
  j["steps_per_print"] = 100;
  // DeepSpeed's config has no run length (the training loop has): carried for the loop, which DeepSpeed ignores.
  j["shardmeter_train_steps"] = p.train_steps();
  // Nor a warm-up without the peak learning rate (WarmupLR's warmup_max_lr, runtime/lr_schedules.py), which is the
  // user's: the steps are carried for the loop or the scheduler section the user adds.
  if (p.extras_known()) {
    j["shardmeter_warmup_steps"] = p.warmup_steps();
    if (p.warmup_steps() > 0)
      out.notes.push_back(fmt::format("deepspeed: warm the learning rate up linearly over {} steps: add \"scheduler\": "
                                      "{{\"type\": \"WarmupLR\", \"params\": {{\"warmup_num_steps\": {}, "
                                      "\"warmup_type\": \"linear\", \"warmup_max_lr\": <your peak>}}}}",
                                      p.warmup_steps(), p.warmup_steps()));
  }
  if (p.moe()) {
    const model::ModelSpec& m = p.model();
    // Not read by DeepSpeed: the arguments of deepspeed.moe.layer.MoE for every MoE block of the model code.
    j["shardmeter_moe_layer"] = {{"num_experts", m.moe.experts},
                                 {"ep_size", p.plan().ep},
                                 {"k", m.moe.top_k},
                                 {"capacity_factor", m.moe.capacity_factor > 0 ? m.moe.capacity_factor : 1.0},
                                 {"drop_tokens", m.moe.capacity_factor > 0},
                                 {"expert_ffn_hidden", m.moe.expert_ffn_hidden},
                                 {"moe_blocks", p.moe_layers()}};
    out.notes.push_back(fmt::format("deepspeed: build each of the {} MoE blocks as deepspeed.moe.layer.MoE("
                                    "hidden_size={}, expert=<an FFN of width {}>, num_experts={}, ep_size={}, k={}{}) "
                                    "and pass its parameters through deepspeed.moe.utils."
                                    "split_params_into_different_moe_groups_for_optimizer",
                                    p.moe_layers(), m.hidden, m.moe.expert_ffn_hidden, m.moe.experts, p.plan().ep, m.moe.top_k,
                                    m.moe.capacity_factor > 0 ? fmt::format(", capacity_factor={}", m.moe.capacity_factor)
                                                          : std::string(", drop_tokens=False")));
  }
  if (p.plan().sharding == model::Sharding::hsdp)
    out.notes.push_back(fmt::format("deepspeed: hsdp is ZeRO-3 with MiCS shard groups of {} GPUs: build the model "
                                    "under deepspeed.zero.MiCS_Init", p.degrees().dp_shard));
  if (p.plan().pp == 1 && p.plan().recompute != model::Recompute::none)
    out.notes.push_back(fmt::format("deepspeed: recompute {} is set in the model code (e.g. gradient "
                                    "checkpointing), not in the DeepSpeed config", p.plan().recompute));
  if (p.plan().pp > 1 && p.plan().recompute == model::Recompute::selective)
    out.notes.push_back("deepspeed: selective recompute is set in the model code; the pipeline's "
                        "activation_checkpoint_interval is for full recompute");
  if (p.plan().pp > 1) {
    out.notes.push_back(fmt::format("deepspeed: build the model as a PipelineModule(num_stages={})", p.plan().pp));
    // The partition is the model code's (partition_method); say which blocks per rank the plan was costed with.
    std::string ranks;
    bool even = true;
    for (std::int64_t r = 0; r < p.plan().pp; ++r) {
      ranks += (r > 0 ? ", " : "") + std::to_string(p.rank_layers(r));
      even = even && p.rank_layers(r) == p.rank_layers(0);
    }
    if (!even || p.plan().pp_embedding_layers > 0 || p.plan().pp_head_layers > 0)
      out.notes.push_back("deepspeed: partition the PipelineModule so the ranks hold " + ranks +
                          " transformer blocks, as the plan was costed (docs/model.md §5.4; "
                          "partition_method 'type:transformer|embedding' counts both embeddings as layers)");
  }
  if (p.training().precision == model::Precision::fp8)
    out.notes.push_back("deepspeed: fp8 GEMMs need Transformer Engine in the model; the config enables bf16");
  out.text = json_text(j);
  return out;
}

}  // namespace shardmeter::results
