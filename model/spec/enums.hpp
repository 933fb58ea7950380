#pragma once
// Closed vocabularies of the model. Their text names (for YAML, JSON and tables) live in enum_names.hpp,
// so the evaluation path never touches strings.
#include <cstdint>

namespace shardmeter::model {

enum class FfnType : std::uint8_t { gelu, swiglu };
enum class NormType : std::uint8_t { layernorm, rmsnorm };
enum class PositionEmbedding : std::uint8_t { learned, rope, alibi };
enum class Precision : std::uint8_t { bf16, fp16, fp8 };
// How fp8 scaling factors are found (docs/model.md §2.2): delayed = from an amax history (Transformer Engine's
// DelayedScaling, one read per cast), current = from the tensor itself (TE current scaling, torchao's dynamic
// scaling: an extra read per cast). stack_default: current for torch_fsdp2 (torchao has no other), else delayed.
enum class Fp8Recipe : std::uint8_t { stack_default, delayed, current, mxfp8 };
enum class Optimizer : std::uint8_t { adamw, adamw_8bit, sgd_momentum, lion };
// Element type of the optimizer's moment states (AdamW m and v; the momentum of SGD and Lion): fp32, or bf16 as
// Megatron-Core's precision-aware optimizer (--exp-avg-dtype / --exp-avg-sq-dtype) and NeMo's distributed_fused_adam
// (optim.dtype) keep them (docs/model.md §7.2). 8-bit AdamW keeps 1-byte states whatever this says.
enum class StateDtype : std::uint8_t { fp32, bf16 };
// The weights the optimizer updates: fp32 = an fp32 master copy beside the 16-bit working weights (mixed
// precision); none = the 16-bit weights are updated directly (docs/model.md §7.2).
enum class MasterWeights : std::uint8_t { fp32, none };
enum class Sharding : std::uint8_t { none, zero1, zero2, fsdp, hsdp };
// selective = Megatron's core-attention recompute; op_selective = torchtitan's per-op policy (docs/model.md §7.5).
enum class Recompute : std::uint8_t { none, selective, full, op_selective };
enum class AttentionKernel : std::uint8_t { flash, standard };
// The training software stack: how it executes ZeRO/FSDP and which calibrated efficiency set applies
// (docs/model.md §6.7): Megatron-LM with apex kernels (2021-22), Megatron-Core with Transformer Engine, PyTorch
// FSDP2 (torchtitan), PyTorch FSDP1 (eager), DeepSpeed, and DeepSpeed ZeRO-3 as of v0.3-0.4 (2021: one all-gather
// per parameter tensor over a flat ring of every shard rank).
enum class Stack : std::uint8_t { megatron, megatron_te, torch_fsdp2, torch_fsdp1, deepspeed, deepspeed_2021 };
inline constexpr int kStackCount = 6;
// The two stacks that run Megatron-Core (with or without Transformer Engine): its MoE dispatcher and experts, its
// unfused YaRN RoPE, its main-gradient dtype.
constexpr bool is_megatron_core(Stack stack) noexcept { return stack == Stack::megatron || stack == Stack::megatron_te; }
enum class SyncMode : std::uint8_t { synchronous, diloco };
// How a synchronous job across heterogeneous islands splits the global batch.
enum class BatchSplit : std::uint8_t { balanced, equal };
// How an MoE router scores experts. softmax: top-k of a softmax over the experts (Mixtral, Qwen3, gpt-oss);
// sigmoid: sigmoid scores with a per-expert bias for auxiliary-loss-free balancing (DeepSeek-V3; the bias adds E
// parameters per MoE layer). Both cost one h x E GEMM per token and a few memory-bound passes over the scores.
enum class MoeRouter : std::uint8_t { softmax, sigmoid };
// How MoE tokens reach their experts (docs/model.md §15.4). alltoall: one copy per routed expert (NCCL all-to-all,
// Megatron's alltoall dispatcher); deepep: one copy per destination node, forwarded inside it (DeepEP / HybridEP,
// Megatron's flex dispatcher).
enum class EpDispatcher : std::uint8_t { alltoall, deepep };
// What MoE layers recompute in the backward pass beyond plan.recompute (Megatron --recompute-modules): activation =
// the experts' activation function (moe_act); layer = the whole routed part, dispatch and combine included (moe).
enum class MoeRecompute : std::uint8_t { none, activation, layer };
// The submodules Megatron's selective recompute re-runs (--recompute-granularity selective --recompute-modules;
// docs/model.md §7.11). Each is one bit of plan.recompute_modules (bit i = value i); moe_act and moe are carried by
// plan.moe_recompute, which the scenario parser keeps in step with these bits.
enum class RecomputeModule : std::uint8_t { core_attn, mlp, moe_act, layernorm, mla_up_proj, moe, shared_experts };
inline constexpr int kRecomputeModuleCount = 7;
// The pipeline schedule (docs/model.md §5.8, §7.4): one_f_one_b is 1F1B, interleaved when plan.interleave > 1;
// dualpipe is DeepSeek-V3's bidirectional DualPipe (arXiv 2412.19437 §3.2.1): each rank holds stages r and pp-1-r.
enum class PipelineSchedule : std::uint8_t { one_f_one_b, dualpipe };
// What the faster islands do in DiLoCo while slower ones finish their H inner steps.
enum class DilocoFastIslands : std::uint8_t { wait, more_steps };

// Which NCCL algorithm and protocol a collective was charged with (docs/model.md §3.5), or a measured network
// profile (§3.6); none when the group has one rank.
enum class CollectiveAlgorithm : std::uint8_t { none, ring, ring_ll, tree, tree_ll, measured };
// How an island's scale-out switches are laid out (docs/model.md §3.5): rail-optimised (GPU i of every node on
// rail switch i, NVIDIA DGX SuperPOD) or one leaf switch per rack.
enum class ScaleoutTopology : std::uint8_t { rail_optimized, top_of_rack };

// The resource that limits the step (model::limiting_resource, docs/model.md §5.7), or why the plan cannot run.
enum class Bottleneck : std::uint8_t {
  compute,
  memory_bandwidth,
  tp_comm,
  pp_comm,
  pipeline_bubble,
  dp_comm,
  memory_capacity,
  wan,
  straggler,
  ep_comm,
};

}  // namespace shardmeter::model
