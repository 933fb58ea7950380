#include "model/memory/state_bytes.hpp"

namespace shardmeter::model {

namespace {

constexpr double kMasterBytes = 4.0;   // fp32 master weights
constexpr double kHalfBytes = 2.0;     // 16-bit weights and gradients

bool keeps_main_grads_in_reduce_dtype(Stack stack) { return is_megatron_core(stack); }

double moment_states(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::adamw:
    case Optimizer::adamw_8bit: return 2.0;   // m and v
    case Optimizer::sgd_momentum:
    case Optimizer::lion: return 1.0;         // momentum
  }
  return 2.0;
}

}  // namespace

double state_element_bytes(const TrainingSpec& t) noexcept {
  if (t.optimizer == Optimizer::adamw_8bit) return 1.0;  // ml-engineering: 2 bytes of state per parameter
  return t.optimizer_state_dtype == StateDtype::bf16 ? 2.0 : 4.0;
}

double gradient_bytes_per_param(const TrainingSpec& t, Stack stack) noexcept {
  return keeps_main_grads_in_reduce_dtype(stack) ? static_cast<double>(t.grad_reduce_bytes) : kHalfBytes;
}

double optimizer_bytes_per_param(const TrainingSpec& t) noexcept {
  const double master = t.master_weights == MasterWeights::fp32 ? kMasterBytes : 0.0;
  return master + moment_states(t.optimizer) * state_element_bytes(t);
}

double optimizer_update_bytes_per_param(const TrainingSpec& t, Stack stack) noexcept {
  const bool master = t.master_weights == MasterWeights::fp32;
  // The gradient the update reads: Megatron's main gradient (the reduction's type); elsewhere the gradient of
  // the weights updated, fp32 beside a master copy (AMP / FSDP fp32 shards), 16-bit without one.
  const double gradient = keeps_main_grads_in_reduce_dtype(stack) ? static_cast<double>(t.grad_reduce_bytes)
                                                                   : (master ? kMasterBytes : kHalfBytes);
  const double weights = master ? 2.0 * kMasterBytes + kHalfBytes : 2.0 * kHalfBytes;
  return gradient + weights + 2.0 * moment_states(t.optimizer) * state_element_bytes(t);
}

}  // namespace shardmeter::model
