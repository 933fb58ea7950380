#include "model/parallel/fp8.hpp"

#include "model/parallel/recompute.hpp"

#include "model/comm/collectives.hpp"
#include "model/kernels/kernel_time.hpp"
#include "model/kernels/mla.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/parallel/recompute.hpp"
#include "model/kernels/tensor_bytes.hpp"

namespace shardmeter::model {

namespace {
constexpr double kAmaxBytes = 4.0;  // one fp32 amax per quantized tensor
// Quantized tensors per GEMM in TE's amax history buffers: forward input, weight, output; backward output
// gradient, input gradient (docs/features/low_precision_training/fp8_delayed_scaling, TE v2.18).
constexpr double kAmaxForwardPerGemm = 3.0;
constexpr double kAmaxBackwardPerGemm = 2.0;
}  // namespace

bool stack_runs_fp8(Stack stack) noexcept { return stack != Stack::megatron && stack != Stack::deepspeed_2021; }

bool stack_gathers_fp8_params(Stack stack) noexcept {
  return stack == Stack::megatron_te || stack == Stack::torch_fsdp2;
}

Fp8Use fp8_use(Precision precision, Stack stack, bool fp8_params, Fp8Recipe recipe) noexcept {
  Fp8Use u;
  if (precision != Precision::fp8 || !stack_runs_fp8(stack)) return u;
  const bool torchao = stack == Stack::torch_fsdp2;  // torchtitan's Float8Linear; the others run TE modules
  const bool params = fp8_params && stack_gathers_fp8_params(stack);
  u.gemms = true;
  u.logits = torchao;
  u.saved_inputs = !torchao;
  u.weight_copies = stack == Stack::megatron_te && !params;
  u.tp_all_gather = true;
  u.param_gather = params;
  u.te_casts = !torchao;
  u.current_scaling = torchao || recipe == Fp8Recipe::current;
  u.weight_cast_per_step = stack == Stack::megatron_te;
  return u;
}

double fp8_cast_bytes_per_element(const Fp8Use& use) noexcept {
  if (!use.gemms) return 0.0;
  const double read = kActivationBytes * (use.current_scaling ? 2.0 : 1.0);
  if (use.te_casts) return read + 2.0 * kFp8Bytes;  // one fused cast + transpose
  return 2.0 * (read + kFp8Bytes);                  // cast in forward, recast in backward
}

Fp8BlockTensors fp8_block_tensors(const ModelSpec& m, const PlanSpec& plan, int micro_batch) noexcept {
  const double t = plan.tp;
  const double tokens = micro_batch * static_cast<double>(m.seq_len) / plan.cp;
  const double h = m.hidden, f = m.ffn_hidden;
  const double sp = plan.sequence_parallel ? t : 1.0;  // replicated activations are split over TP only under SP
  const double q_out = static_cast<double>(m.heads) * m.head_dim;
  const double kv_out = static_cast<double>(m.kv_heads) * m.head_dim;
  const double gated = m.ffn_type == FfnType::swiglu ? 2.0 : 1.0;
  const double up_width = gated * f;
  const double dense_share = static_cast<double>(dense_layer_count(m)) / m.layers;
  Fp8BlockTensors x;
  if (uses_mla(m)) {
    // MLA hook: the latent projections as one GEMM over h (as model/step/layer_cost.cpp times them).
    x.inputs = tokens * h / sp;
    x.norm_inputs = x.inputs;
    x.grad_outputs = tokens * attention_matmul_params(m) / h / t;
    x.gemms = 1.0;
  } else {
    x.inputs = tokens * (h / sp + q_out / t);                  // QKV input, projection input
    x.norm_inputs = tokens * h / sp;
    x.grad_outputs = tokens * ((q_out + 2.0 * kv_out) / t + h / sp);  // QKV output, projection output
    x.gemms = 2.0;
  }
  x.inputs += dense_share * tokens * (h / sp + f / t);          // MLP up input, MLP down input
  x.norm_inputs += dense_share * tokens * h / sp;
  x.grad_outputs += dense_share * tokens * (up_width / t + h / sp);
  x.gemms += dense_share > 0 ? 2.0 : 0.0;
  x.norm_gemms = 1.0 + (dense_share > 0 ? 1.0 : 0.0);
  x.weights = fp8_block_weight_params(m) / t;
  if (!is_moe(m)) return x;
  // MoE blocks (docs/model.md §15.4): the experts' GEMMs run in fp8 like the dense ones; their inputs follow a
  // separate norm (the router shares it), so none is written in fp8 by a LayerNormLinear.
  const double moe_share = 1.0 - dense_share;
  if (m.moe.shared_experts > 0) {
    // Shared experts: a TP-split MLP of width S x f_s over the block's tokens, as the dense MLP.
    const double width = static_cast<double>(m.moe.shared_experts) * m.moe.shared_expert_ffn_hidden;
    x.inputs += moe_share * tokens * (h / sp + width / t);
    x.grad_outputs += moe_share * tokens * (gated * width / t + h / sp);
    x.weights += moe_share * mlp_matmul_params(m, width) / t;
    x.gemms += moe_share * 2.0;
  }
  // Routed experts: the busiest rank's copies, E/EP local experts of width f/ETP: fc1 reads h, fc2 reads f/ETP;
  // their output gradients are 2f/ETP (SwiGLU) and h wide.
  const double copies = busiest_rank_routed_copies(m, plan, micro_batch);
  const double f_local = static_cast<double>(m.moe.expert_ffn_hidden) / plan.etp;
  x.local_experts = static_cast<double>(m.moe.experts) / plan.ep;
  x.expert_inputs = moe_share * copies * (h + f_local);
  x.expert_grad_outputs = moe_share * copies * (gated * f_local + h);
  x.expert_weights = moe_share * x.local_experts * mlp_matmul_params(m, f_local);
  x.expert_tensors = moe_share * 2.0;
  return x;
}

double fp8_block_weight_params(const ModelSpec& m) noexcept {
  const double dense_share = static_cast<double>(dense_layer_count(m)) / m.layers;
  return attention_matmul_params(m) + dense_share * mlp_matmul_params(m, m.ffn_hidden);
}

Fp8CastCost fp8_cast_cost(const ModelSpec& m, const GpuSpec& gpu, const PlanSpec& plan, const Fp8Use& use,
                          int micro_batch, double blocks, const IslandLayout& l) noexcept {
  Fp8CastCost c;
  if (!use.gemms) return c;
  const Fp8BlockTensors x = fp8_block_tensors(m, plan, micro_batch);
  const double per_element = fp8_cast_bytes_per_element(use);
  const double casts_per_tensor = use.te_casts ? 1.0 : 2.0;
  // TE fuses the cast of a norm's output into the norm kernel (LayerNormLinear); torchao casts it on its own.
  const double cast_inputs = use.te_casts ? x.inputs - x.norm_inputs : x.inputs;
  const double cast_input_kernels = use.te_casts ? x.gemms - x.norm_gemms : x.gemms;
  // Routed experts: Transformer Engine's GroupedLinear quantizes each local expert's rows apart (tex.split_quantize).
  // Delayed scaling takes one fused multi-tensor cast-transpose for all of them; current scaling falls back to three
  // launches per expert (amax, scale, quantize: Float8CurrentScalingQuantizer::quantize), TE v2.14 cast.cpp
  // multi_tensor_quantize_impl (docs/model.md §2.2, §15.4). torchao casts the grouped operand at once.
  const double expert_launches = use.te_casts && use.current_scaling ? 3.0 * x.local_experts : 1.0;
  double bytes = (cast_inputs + x.grad_outputs) * per_element;
  double kernels = (cast_input_kernels + x.gemms) * casts_per_tensor;
  double expert_bytes = (x.expert_inputs + x.expert_grad_outputs) * per_element;
  double expert_kernels = 2.0 * x.expert_tensors * expert_launches * casts_per_tensor;
  if (use.weight_cast_per_step) {
    // TE refreshes its cached fp8 weight and transpose on the first micro-batch of the step; with fp8 primary
    // weights only the transpose (read 1 B, write 1 B). One launch per expert weight.
    const double step_bytes = use.param_gather ? 2.0 * kFp8Bytes : per_element;
    c.per_step_s = memory_bound_time_s((x.weights + x.expert_weights) * step_bytes,
                                       x.gemms + x.expert_tensors * x.local_experts, gpu);
  } else if (use.param_gather) {
    // FSDP2 fp8 all-gather: the local shard is cast before each gather (forward and backward, reshard after forward).
    // The routed experts' weights are cast where they are used, every micro-batch.
    bytes += 2.0 * x.weights / l.dp_shard * (per_element / casts_per_tensor);
    kernels += 2.0 * x.gemms;
    expert_bytes += x.expert_weights * per_element;
    expert_kernels += x.expert_tensors * casts_per_tensor;
  } else {
    bytes += x.weights * per_element;
    kernels += x.gemms * casts_per_tensor;
    expert_bytes += x.expert_weights * per_element;
    expert_kernels += x.expert_tensors * casts_per_tensor;
  }
  c.experts_per_microbatch_s = memory_bound_time_s(expert_bytes, expert_kernels, gpu);
  c.per_microbatch_s = memory_bound_time_s(bytes + expert_bytes, kernels + expert_kernels, gpu);
  c.recompute_s = memory_bound_time_s((cast_inputs + x.expert_inputs) * per_element / casts_per_tensor,
                                      cast_input_kernels + x.expert_tensors * expert_launches, gpu);

  if (plan.tp > 1) {
    if (!use.current_scaling) {
      // Delayed scaling: one fused amax reduction of the stage's history buffers per pass over the TP group.
      const double gemms = x.gemms * blocks;
      c.amax_per_microbatch_s =
          hierarchical_all_reduce_s(kAmaxBytes * kAmaxForwardPerGemm * gemms, l.tp_group, l.links) +
          hierarchical_all_reduce_s(kAmaxBytes * kAmaxBackwardPerGemm * gemms, l.tp_group, l.links);
    } else if (plan.sequence_parallel) {
      // Current scaling: every tensor gathered over TP needs the group's amax before its cast - the QKV and MLP-up
      // inputs in forward, the projection and MLP-down output gradients in backward.
      const double tensors = 4.0 * blocks;
      c.amax_per_microbatch_s = tensors * hierarchical_all_reduce_s(kAmaxBytes, l.tp_group, l.links);
    }
  }
  return c;
}

double tp_all_gather_bytes_per_element(const Fp8Use& use, bool sequence_parallel) noexcept {
  if (!sequence_parallel || !use.tp_all_gather) return kActivationBytes;
  // Reduce-scatter at 2 B and all-gather at 1 B, timed as one all-reduce of their mean width.
  return 0.5 * (kActivationBytes + kFp8Bytes);
}

double fp8_saved_activation_delta_bytes(const ModelSpec& m, const PlanSpec& plan, int micro_batch,
                                        const Fp8Use& use) noexcept {
  // op_selective keeps matmul outputs, not the GEMM inputs TE would save in fp8 (docs/model.md §7.5).
  if (!use.saved_inputs || plan.recompute == Recompute::full || plan.recompute == Recompute::op_selective) return 0.0;
  const double t = plan.tp;
  const double sbh = micro_batch * static_cast<double>(m.seq_len) / plan.cp * m.hidden;
  const double sp = plan.sequence_parallel ? t : 1.0;
  const double saved = kActivationBytes - kFp8Bytes;  // 1 B saved per element now kept in fp8
  const double dense_share = static_cast<double>(dense_layer_count(m)) / m.layers;
  // The norms' outputs feeding QKV and MLP-up (replicated unless SP); the MLP-down input (f wide, split by TP).
  // recompute_modules (§7.11): layernorm discards the 16-bit norm outputs, so TE's fp8 copies are kept beside
  // nothing (+1 B instead of -1 B); mlp checkpoints the dense MLP, which keeps its 16-bit input and no fp8 copy.
  const double dense_mlp_kept = recomputes_module(plan, RecomputeModule::mlp) ? 0.0 : dense_share;
  const double norm_delta = recomputes_module(plan, RecomputeModule::layernorm) ? kFp8Bytes : -saved;
  double delta = norm_delta * sbh * (1.0 + dense_mlp_kept) / sp;
  delta -= saved * dense_mlp_kept * sbh * static_cast<double>(m.ffn_hidden) / m.hidden / t;
  // The projection input: flash attention keeps its 16-bit output for its backward, TE adds an fp8 copy; standard
  // attention's output is kept only by the projection, now in fp8.
  const double attention_out = sbh * static_cast<double>(m.heads) * m.head_dim / m.hidden / t;
  delta += (plan.attention == AttentionKernel::flash ? kFp8Bytes : -saved) * attention_out;
  // MoE blocks (docs/model.md §15.5), averaged per block like the dense MLP. Unless the routed part is recomputed
  // whole (moe_recompute: layer keeps only its input), GroupedLinear saves its fp8 copies: the routed copies' fc1
  // input (k x h per token; the bf16 permuted tokens are then kept by nothing) and, unless moe_act recomputes the
  // activation, the fc2 input (k x f). The shared experts' fc2 input likewise; their fc1 input is the norm's
  // output, which the router keeps in 16 bits for its own backward, so TE adds an fp8 copy (+1 B), as for the
  // projection input above.
  if (is_moe(m) && plan.moe_recompute != MoeRecompute::layer) {
    const double moe_share = static_cast<double>(moe_layer_count(m)) / m.layers;
    const double tokens = micro_batch * static_cast<double>(m.seq_len) / plan.cp;
    const double copies = m.moe.top_k * busiest_expert_share(m.moe);
    const double fc2_width = plan.moe_recompute == MoeRecompute::activation ? 0.0 : m.moe.expert_ffn_hidden;
    // recompute_modules shared_experts: the checkpointed shared experts save neither fp8 copy (§7.11).
    const bool shared_saved = m.moe.shared_experts > 0 && !recomputes_module(plan, RecomputeModule::shared_experts);
    const double shared = shared_saved ? static_cast<double>(m.moe.shared_experts) * m.moe.shared_expert_ffn_hidden : 0.0;
    double per_token = -saved * (copies * (m.hidden + fc2_width) + shared) / t;
    if (shared_saved) per_token += kFp8Bytes * m.hidden / sp;
    delta += moe_share * tokens * per_token;
  }
  return delta;
}

}  // namespace shardmeter::model
