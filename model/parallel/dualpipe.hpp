#pragma once
// DualPipe, DeepSeek-V3's bidirectional pipeline schedule (arXiv 2412.19437 §3.2.1 and Table 2;
// deepseek-ai/DualPipe@bb214e8; docs/model.md §5.8). Micro-batches enter from both ends: rank r holds stage r and
// stage pp - 1 - r (two copies of the parameters over the pipeline), and the end ranks hold the embedding and the
// head both.
#include "model/parallel/pipeline_stages.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

constexpr bool uses_dualpipe(const PlanSpec& plan) noexcept {
  return plan.pipeline_schedule == PipelineSchedule::dualpipe && plan.pp > 1;
}

// One rank under DualPipe: the blocks it holds (its stage and the mirrored one) and the block micro-batches of
// activations at its peak. DualPipe::step() runs 2 (pp/2 - hr - 1) + (hr + 1) forward chunks of its own direction and
// hr + 1 of the other before its first backward (hr = min(r, pp - 1 - r)), then one more forward of its own direction
// before that backward frees one: pp - hr chunks of its own stage and hr + 1 of the mirrored one, pp + 1 in all
// (Table 2). The end ranks (hr = 0) hold pp chunks of the first stage (the embedding stage, where both directions'
// micro-batches enter them) and 1 of the last; the middle rank (r = 1) pp - 1 + 2 chunks of middle stages.
struct DualPipeRank {
  double blocks = 0;                      // transformer blocks held (two stages)
  double activation_block_microbatches = 0;
};
// `end_rank`: rank 0 or pp - 1 (first/last/only positions); otherwise rank 1, whose two stages are middle stages.
constexpr DualPipeRank dualpipe_rank(const PlanSpec& plan, const StageLayers& stages, bool end_rank) noexcept {
  const double pp = plan.pp;
  if (end_rank) return {static_cast<double>(stages.first) + stages.last, pp * stages.first + 1.0 * stages.last};
  return {2.0 * stages.middle, (pp + 1.0) * stages.middle};
}

// The pipeline bubble: (pp/2 - 1)(F&B + B - 3W) (Table 2), from one micro-batch's time on the slowest stage,
// t = F + B, with the backward twice the forward (B = 2F: Narayanan et al. 2021) and the weight-gradient half the
// backward (W = F: Qi et al. 2023, arXiv 2401.10241 §2), and the overlapped forward-and-backward pair taking F + B
// (the overlap hides communication, not computation): (pp/2 - 1)(t + 2t/3 - t) = (pp/2 - 1) 2t/3.
constexpr double dualpipe_bubble_s(int pp, double microbatch_s) noexcept {
  const double f = microbatch_s / 3.0, b = 2.0 * f, w = f;
  const double f_and_b = f + b;
  const double half = pp / 2.0 - 1.0;
  return half > 0 ? half * (f_and_b + b - 3.0 * w) : 0.0;
}

}  // namespace shardmeter::model
