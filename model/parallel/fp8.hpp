#pragma once
// fp8 training end to end (docs/model.md §2.2): which tensors a training stack keeps and moves in fp8, and what the
// cast/scaling kernels it runs for them cost. One table per stack, read by the layer costs, the memory model and
// the data-parallel traffic.
#include "model/spec/enums.hpp"
#include "model/spec/hardware_spec.hpp"
#include "model/parallel/layout.hpp"
#include "model/spec/model_spec.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

// What is fp8 for one plan. Everything false unless precision is fp8 on a stack that runs fp8 (the consistency
// rule `fp8_not_supported` rejects the other combinations, and fp8 on a GPU without fp8 tensor cores).
struct Fp8Use {
  bool gemms = false;                 // the blocks' GEMMs run at the fp8 peak; attention stays 16-bit
  bool logits = false;                // the output layer's GEMM is fp8 too (torchtitan converts every nn.Linear)
  bool saved_inputs = false;          // fp8 GEMM inputs are saved for backward in fp8 (Transformer Engine)
  bool weight_copies = false;         // fp8 weights + transposes cached beside the 16-bit weights (megatron_te)
  bool tp_all_gather = false;         // sequence-parallel all-gathers move fp8 (the reduce-scatters stay 16-bit)
  bool param_gather = false;          // ZeRO/FSDP parameter all-gathers move the GEMM weights in fp8 (fp8_params)
  bool te_casts = false;              // TE: one fused cast + transpose per tensor; else torchao: cast, then recast
  bool current_scaling = false;       // scale from the tensor's own amax (an extra read), not an amax history
  bool weight_cast_per_step = false;  // weights cast once per step (TE's first-micro-batch cache; fp8 params)
};

Fp8Use fp8_use(Precision precision, Stack stack, bool fp8_params = false,
               Fp8Recipe recipe = Fp8Recipe::stack_default) noexcept;

// Stacks that train in fp8 at all (Megatron-LM with apex and DeepSpeed of 2021 predate fp8), and those whose
// ZeRO/FSDP can all-gather fp8 parameters (Megatron's distributed optimizer / FSDP, torchtitan's FSDP2).
bool stack_runs_fp8(Stack stack) noexcept;
bool stack_gathers_fp8_params(Stack stack) noexcept;

inline constexpr double kFp8Bytes = 1.0;  // one fp8 element (E4M3 or E5M2)

// HBM bytes per element of one tensor quantized for its GEMMs, over a forward and a backward pass: each cast reads
// the 16-bit tensor (2 B; twice under current scaling, the first read finding its amax) and writes 1 B per fp8
// layout. Transformer Engine casts once and writes the rowwise and the transposed layout (Hopper's fp8 GEMMs need
// both); torchao casts in forward and recasts from the saved 16-bit tensor in backward, one layout each.
//   TE:      (2 or 4) + 2          torchao: 2 x (4 + 1)
double fp8_cast_bytes_per_element(const Fp8Use& use) noexcept;

// Elements per GPU of one block's fp8 GEMM operands for one micro-batch (dense and MLA attention, the dense MLP,
// the shared experts; averaged per block over the dense and MoE blocks), and the number of those GEMMs; the routed
// experts' operands apart, since Transformer Engine casts them per local expert (docs/model.md §2.2, §15.4).
struct Fp8BlockTensors {
  double inputs = 0;        // GEMM inputs: cast on the local sequence shard under SP, before the fp8 all-gather
  double norm_inputs = 0;   // the part of `inputs` a norm produces (QKV and MLP-up inputs)
  double grad_outputs = 0;  // output gradients, likewise
  double weights = 0;       // the block's matrices on this GPU (split by TP)
  double gemms = 0;         // forward GEMMs (QKV, projection, MLP up, MLP down, shared-expert up, down)
  double norm_gemms = 0;    // those fed by a norm (QKV, MLP up)
  // Routed experts (busiest expert-parallel rank, as model/moe/moe_cost.cpp times them): fc1 and fc2 inputs over the
  // routed copies, their output gradients, the local experts' matrices; `expert_tensors` is the forward's grouped
  // GEMMs per block (2 in an MoE block), each of `local_experts` splits.
  double expert_inputs = 0;
  double expert_grad_outputs = 0;
  double expert_weights = 0;
  double expert_tensors = 0;
  double local_experts = 0;
};
Fp8BlockTensors fp8_block_tensors(const ModelSpec& model, const PlanSpec& plan, int micro_batch) noexcept;

// Memory-bound time of one block's cast kernels: the inputs and output gradients of every micro-batch, the weights
// per micro-batch or once per step (TE's LayerNormLinear writes the norm's output in fp8 directly, so the QKV and
// MLP-up inputs cost no cast of their own there); plus the amax all-reduce over the TP group per micro-batch of the stage
// (TE: one per pass for the whole stage; torchao: one per TP-sharded tensor).
struct Fp8CastCost {
  double per_microbatch_s = 0;  // one block, one micro-batch
  double experts_per_microbatch_s = 0;  // the routed experts' part of it (their operands, per local expert)
  double recompute_s = 0;       // one block's forward input casts again, when full recompute re-runs it
  double per_step_s = 0;        // one block, once per optimizer step
  double amax_per_microbatch_s = 0;  // the whole stage, one micro-batch
};
Fp8CastCost fp8_cast_cost(const ModelSpec& model, const GpuSpec& gpu, const PlanSpec& plan, const Fp8Use& use,
                          int micro_batch, double blocks, const IslandLayout& layout) noexcept;

// Bytes one sequence-parallel TP collective (an all-gather + a reduce-scatter of the block's activation) moves per
// element: 2 + 2, or 1 + 2 with fp8 all-gathers. Without SP an all-reduce of 16-bit values.
double tp_all_gather_bytes_per_element(const Fp8Use& use, bool sequence_parallel) noexcept;

// Change of one block's saved activations (bytes, one micro-batch, one GPU) when the stack saves the inputs of its
// fp8 GEMMs in fp8 (docs/model.md §2.2, §7.3): the QKV and MLP inputs (the norms' outputs) and the MLP-down input
// drop to 1 B per element; the projection input is saved in fp8 beside the 16-bit attention output flash attention
// keeps for its own backward (+1 B), or instead of it with standard attention (-1 B); in MoE blocks the experts'
// saved GEMM inputs likewise (docs/model.md §15.5). 0 without fp8 inputs or under full recompute (which keeps the
// 16-bit block input only).
double fp8_saved_activation_delta_bytes(const ModelSpec& model, const PlanSpec& plan, int micro_batch,
                                        const Fp8Use& use) noexcept;

// The GEMM weights of one block (its matrices outside the routed experts), the part that is fp8.
double fp8_block_weight_params(const ModelSpec& model) noexcept;

}  // namespace shardmeter::model
