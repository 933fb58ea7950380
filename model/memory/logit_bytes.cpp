#include "model/memory/logit_bytes.hpp"

namespace shardmeter::model {

namespace {
constexpr double kLogitBytes = 2.0;     // the head's 16-bit output, kept for the loss's backward
constexpr double kFp32LossBytes = 4.0;  // the fp32 copy an fp32 loss works on
constexpr double kHalfLossBytes = 2.0;  // a 16-bit loss's own tensor (gradient or log-softmax)
// torch_fsdp2 (torchtitan's eager cross_entropy(pred.float())): at the start of backward the fp32 log-softmax output
// the loss saved, nll_loss's fp32 gradient and log-softmax's fp32 input gradient live at once (docs/model.md §7.7.1).
constexpr double kEagerFp32LossBackwardBytes = 3.0 * 4.0;
}  // namespace

double logit_bytes_per_element(Stack stack) noexcept {
  if (stack == Stack::torch_fsdp2) return kEagerFp32LossBackwardBytes;
  return kLogitBytes + (stack == Stack::torch_fsdp1 ? kHalfLossBytes : kFp32LossBytes);
}

}  // namespace shardmeter::model
