#include "model/job/token_efficiency.hpp"

#include <algorithm>

#include "model/job/batch_efficiency.hpp"
#include "model/job/diloco.hpp"

namespace shardmeter::model {

double non_embedding_parameters(const ParameterCounts& params) noexcept {
  return std::max(0.0, params.active - params.embedding - params.output_head);
}

// docs/model.md §9.8: E = E_batch(B / M) x E_DiLoCo(M, H, N, D). Each DiLoCo replica's inner optimizer sees B / M
// tokens a step, so the batch term is taken at that batch (Charles et al. 2025: DiLoCo tolerates larger global
// batches than data parallelism); the DiLoCo term is measured against data parallelism at its own tuned batch.
TokenEfficiency token_efficiency(const Scenario& s, const ParameterCounts& params, int replicas) noexcept {
  TokenEfficiency t;
  const int m = std::max(1, replicas);
  t.optimizer_batch_tokens = static_cast<double>(s.training.global_batch) * s.model.seq_len / m;
  const BatchEfficiency b =
      batch_efficiency(BatchInput{non_embedding_parameters(params), t.optimizer_batch_tokens, s.training.tokens});
  t.batch = b.token_efficiency;
  t.noise_batch_tokens = b.noise_batch_tokens;
  t.optimal_batch_tokens = b.optimal_batch_tokens;
  t.warnings = b.warnings;
  if (s.plan.sync == SyncMode::diloco) {
    const Convergence c = diloco_token_efficiency(s.plan.diloco, m, params.total, s.training.tokens / params.total,
                                                  s.model.layers);
    t.diloco = c.token_efficiency;
    t.warnings |= c.warnings;
  }
  t.token_efficiency = t.batch * t.diloco;
  return t;
}

}  // namespace shardmeter::model
