#pragma once
// Floating-point operations of training, per sequence and per step.
#include "model/spec/enums.hpp"
#include "model/spec/model_spec.hpp"
#include "model/kernels/parameters.hpp"

namespace shardmeter::model {

struct FlopCounts {
  double layer_matmul_fwd = 0;      // one block's dense matmuls, forward, one sequence
  double attention_fwd = 0;         // one block's QK^T and AV, forward, one sequence, causal convention
  double logits_fwd = 0;            // output projection, forward, one sequence
  double model_per_sequence = 0;    // forward + backward (3x forward), causal attention: the MFU numerator
  double hardware_per_sequence = 0; // model FLOPs plus what the recompute policy re-executes: the HFU numerator
};

// Per sequence of model.seq_len tokens. Model FLOPs follow Megatron-LM's current
// num_floating_point_operations (causal core attention, GQA and SwiGLU aware) [docs/model.md §1.2].
// Hardware FLOPs add the recomputed forward: selective = core attention (Korthikanti et al. 2022 §5),
// full = every block's forward, not the logits (Narayanan et al. 2021 eq. 3).
// `recomputed_share`: fraction of the blocks recompute: full re-runs (plan.recompute_layers; docs/model.md §7.5).
FlopCounts count_flops(const ModelSpec& model, Recompute recompute, double recomputed_share = 1.0) noexcept;
// The same with the model's parameter counts already at hand (`params` == count_parameters(model)).
FlopCounts count_flops(const ModelSpec& model, const ParameterCounts& params, Recompute recompute,
                       double recomputed_share = 1.0) noexcept;

// Published FLOP conventions, used to turn a paper's TFLOP/s figure back into time per step.
// Narayanan et al. 2021 (SC'21) eq. 3, non-causal attention, tied 4h GELU MLP:
//   full recompute: 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)); none: 72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)).
double megatron_sc21_flops_per_step(const ModelSpec& model, double global_batch, bool full_recompute) noexcept;
// Megatron-LM num_floating_point_operations as of 2024 (non-causal core attention, no recompute term).
double megatron_core_2024_flops_per_step(const ModelSpec& model, double global_batch) noexcept;

}  // namespace shardmeter::model
