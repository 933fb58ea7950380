#include "model/memory/logit_bytes.hpp"

namespace shardmeter::model {

namespace {
constexpr double kLogitBytes = 2.0;     // the head's 16-bit output, kept for the loss's backward
constexpr double kFp32LossBytes = 4.0;  // the fp32 copy an fp32 loss works on
constexpr double kHalfLossBytes = 2.0;  // a 16-bit loss's own tensor (gradient or log-softmax)
}  // namespace

double logit_bytes_per_element(Stack stack) noexcept {
  return kLogitBytes + (stack == Stack::torch_fsdp1 ? kHalfLossBytes : kFp32LossBytes);
}

}  // namespace shardmeter::model
