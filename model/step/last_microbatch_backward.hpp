#pragma once
// A hook into the island step for the synchronous WAN reduction (model/step/sync_islands.cpp): how long the backward of
// the last micro-batch runs through a replica's pipeline, the window a bucketed gradient reduction may hide behind
// (DDP and FSDP start reducing a bucket as soon as its gradients are final; under gradient accumulation only the
// last micro-batch's backward produces final gradients). docs/model.md §8.2.
#include "model/step/island_step.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

// The backward compute of the last micro-batch on every stage of the replica: pp x one stage's (the stages run it
// one after another, from the last stage back to the first).
inline double last_microbatch_backward_s(const IslandStep& step, const PlanSpec& plan) noexcept {
  return step.backward_window_s * plan.pp;
}

}  // namespace shardmeter::model
