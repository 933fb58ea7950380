#include "model/memory/moe_memory.hpp"

#include <algorithm>

#include "model/memory/memory.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/parallel/recompute.hpp"
#include "model/memory/state_bytes.hpp"
#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

double expert_params_per_gpu(const ParameterCounts& params, const IslandLayout& l, double layers) noexcept {
  return layers * params.expert_layer / (static_cast<double>(l.ep) * l.etp);
}

double expert_states_bytes(const Scenario& s, const IslandLayout& l, const ParameterCounts& params,
                           double layers) noexcept {
  const double p = expert_params_per_gpu(params, l, layers);
  if (p <= 0) return 0.0;
  // As stage_memory does for the dense part, over the expert-data-parallel group (Megatron-Core's distributed
  // optimizer shards expert state over EDP)  [docs/model.md §7.1, §15.5]
  const double shards = s.plan.sharding == Sharding::none ? 1.0 : l.edp;
  double weights = kWeightBytes * p, grads = gradient_bytes_per_param(s.training, s.plan.stack) * p;
  const double optimizer = optimizer_bytes_per_param(s.training) * p / shards;
  if (s.plan.sharding == Sharding::zero2 || s.plan.sharding == Sharding::fsdp || s.plan.sharding == Sharding::hsdp)
    grads /= shards;
  if (s.plan.sharding == Sharding::fsdp || s.plan.sharding == Sharding::hsdp) weights /= shards;
  return weights + grads + optimizer;
}

double moe_extra_activation_bytes(const ModelSpec& m, const PlanSpec& plan, int micro_batch) noexcept {
  const int moe_layers = moe_layer_count(m);
  if (moe_layers == 0 || plan.recompute == Recompute::full) return 0.0;
  const double tokens = micro_batch * static_cast<double>(m.seq_len) / plan.cp;
  const double per_f = m.ffn_type == FfnType::swiglu ? 6.0 : 4.0;  // bytes per token per unit of MLP width
  // plan.moe_recompute: `activation` re-runs the experts' activation function (its output, 2 bytes per unit of
  // width, is not stored); `layer` re-runs the whole routed part, which then stores only its input.
  const double dense_mlp = per_f * m.ffn_hidden / plan.tp;
  if (plan.moe_recompute == MoeRecompute::layer) return -tokens * dense_mlp * moe_layers / m.layers;
  // torchtitan's per-op policy saves no grouped-GEMM output: the routed part stores only its input, and the dense
  // block's share it replaces is the one saved matmul output, 2f/h (docs/model.md §7.5, §15.5).
  if (plan.recompute == Recompute::op_selective) return -tokens * 2.0 * m.ffn_hidden / plan.tp * moe_layers / m.layers;
  const double expert_per_f = per_f - (plan.moe_recompute == MoeRecompute::activation ? 2.0 : 0.0);
  const double share = busiest_expert_share(m.moe);
  // recompute_modules shared_experts checkpoints the shared experts: they keep only their input, the norm's output
  // the block already counts (docs/model.md §7.11).
  const double shared_kept = recomputes_module(plan, RecomputeModule::shared_experts) ? 0.0 : 1.0;
  const double moe_mlp = (m.moe.top_k * share * m.moe.expert_ffn_hidden +
                          shared_kept * static_cast<double>(m.moe.shared_experts) * m.moe.shared_expert_ffn_hidden) *
                         expert_per_f / plan.tp;
  // The experts' fc1 input, k routed copies of the block input (2 bytes). The dispatch and combine all-to-alls save
  // nothing for backward (Megatron _AllToAll keeps only split sizes), the (un)permutation keeps only its index maps
  // and the routing probabilities are applied inside the experts, so no other k-copy buffer is stored (§15.5).
  const double routed_copies = kActivationBytes * m.moe.top_k * share * m.hidden / plan.tp;
  const double extra_moe_block = tokens * (moe_mlp - dense_mlp + routed_copies);
  return extra_moe_block * moe_layers / m.layers;
}

}  // namespace shardmeter::model
