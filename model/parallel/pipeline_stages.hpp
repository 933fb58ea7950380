#pragma once
// How many transformer blocks each pipeline rank holds (docs/model.md §5.4), for the two ways real frameworks split
// a model whose layers do not divide evenly:
//  - explicit first / last stage counts (plan.pp_first_stage_layers / pp_last_stage_layers; Megatron-Core
//    --decoder-first/last-pipeline-num-layers): the remaining layers split evenly over the remaining ranks
//    (Megatron-LM core_v0.19.0 megatron/core/transformer/transformer_block.py get_num_layers_to_build);
//  - the balanced split, where the input embedding and the output head may count as layers
//    (plan.pp_embedding_layers / pp_head_layers; torchtitan pipeline_parallel_first/last_stage_less_layers,
//    Megatron --account-for-embedding/loss-in-pipeline-split): E = L + e + h effective layers over N = pp x v
//    virtual stages, virtual stage i holds E / N, one more for the first E % N, the first minus e and the last minus
//    h blocks (torchtitan v0.2.2 and main@b5bcd76 torchtitan/distributed/pipeline_parallel.py
//    generate_llm_fqn_per_model_part), virtual stage i on rank i % pp ("loop" placement, the same file); when
//    E % N == 0 this is Megatron's account_for split exactly.
// Inline and allocation-free: the consistency rules and the step model call it for every candidate.
#include <algorithm>
#include <cstdint>

#include "model/spec/model_spec.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

// E = L + e + h: the effective layers the balanced split spreads over the pp x v virtual stages (the embedding and
// the head counted as plan.pp_embedding_layers / pp_head_layers layers; docs/model.md §5.4).
constexpr std::int64_t effective_pipeline_layers(const ModelSpec& m, const PlanSpec& plan) noexcept {
  return std::int64_t{m.layers} + std::max(0, plan.pp_embedding_layers) + std::max(0, plan.pp_head_layers);
}

struct StageLayers {
  int first = 0;    // rank 0, all its virtual stages (with pp == 1: every layer)
  int middle = 0;   // rank 1 when pp >= 3: the middle rank with the most layers (the splits give later ranks no more)
  int last = 0;     // rank pp - 1 (== first when pp == 1)
  int first_chunk = 0;   // blocks in rank 0's first virtual stage (the one that holds the embedding)
  int last_chunk = 0;    // blocks in rank pp-1's last virtual stage (the one that holds the head)
  constexpr int fullest() const noexcept { return std::max(first, std::max(middle, last)); }
};

// True when the plan names Megatron's explicit first or last stage count.
constexpr bool explicit_stage_layers(const PlanSpec& plan) noexcept {
  return plan.pp_first_stage_layers > 0 || plan.pp_last_stage_layers > 0;
}

// Blocks on rank r of the balanced split's virtual stages r, r + pp, ... (before the embedding / head weights):
// v x (E / N), plus one for each of them below E % N.
constexpr int balanced_rank_layers(int r, int pp, int v, int base, int extra) noexcept {
  const int extras = extra > r ? std::min(v, (extra - r + pp - 1) / pp) : 0;
  return v * base + extras;
}

// Call on a plan the consistency rules accept (pp >= 1, interleave >= 1); other inputs give defined but
// meaningless counts.
constexpr StageLayers stage_layers(const ModelSpec& m, const PlanSpec& plan) noexcept {
  StageLayers s;
  const int pp = std::max(1, plan.pp), v = std::max(1, plan.interleave);
  if (pp == 1) {
    s.first = s.last = s.first_chunk = s.last_chunk = m.layers;
    return s;
  }
  if (explicit_stage_layers(plan)) {
    const int given = (plan.pp_first_stage_layers > 0 ? 1 : 0) + (plan.pp_last_stage_layers > 0 ? 1 : 0);
    const int rest_stages = pp - given;
    const int rest_layers = m.layers - std::max(0, plan.pp_first_stage_layers) - std::max(0, plan.pp_last_stage_layers);
    const int per_rank = rest_stages > 0 ? rest_layers / rest_stages : 0;
    s.first = plan.pp_first_stage_layers > 0 ? plan.pp_first_stage_layers : per_rank;
    s.last = plan.pp_last_stage_layers > 0 ? plan.pp_last_stage_layers : per_rank;
    s.middle = pp >= 3 ? per_rank : 0;
    s.first_chunk = s.first / v;
    s.last_chunk = s.last / v;
    return s;
  }
  const int e = std::max(0, plan.pp_embedding_layers), h = std::max(0, plan.pp_head_layers);
  const int effective = static_cast<int>(effective_pipeline_layers(m, plan)), stages = pp * v;
  const int base = effective / stages, extra = effective % stages;
  s.first = balanced_rank_layers(0, pp, v, base, extra) - e;
  s.last = balanced_rank_layers(pp - 1, pp, v, base, extra) - h;
  s.middle = pp >= 3 ? balanced_rank_layers(1, pp, v, base, extra) : 0;
  s.first_chunk = base + (extra > 0 ? 1 : 0) - e;
  s.last_chunk = base - h;   // the last virtual stage is never among the first E % N
  return s;
}

// Blocks on pipeline rank r (0 <= r < pp) of the same split.
constexpr int rank_layers(const ModelSpec& m, const PlanSpec& plan, int r) noexcept {
  const StageLayers s = stage_layers(m, plan);
  if (r <= 0) return s.first;
  if (r >= plan.pp - 1) return s.last;
  if (explicit_stage_layers(plan)) return s.middle;
  const int pp = plan.pp, v = std::max(1, plan.interleave);
  const int effective = static_cast<int>(effective_pipeline_layers(m, plan));
  return balanced_rank_layers(r, pp, v, effective / (pp * v), effective % (pp * v));
}

}  // namespace shardmeter::model
