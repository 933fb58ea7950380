#pragma once
// Synchronous training across islands: every island steps together; data parallelism (and optionally the
// pipeline) spans them, with the extra WAN stage in the gradient reduction and the batch split between islands.
#include "model/job_step.hpp"
#include "model/parameters.hpp"
#include "model/scenario.hpp"

namespace shardmeter::model {

JobStep synchronous_step(const Scenario& scenario, const ParameterCounts& params) noexcept;

}  // namespace shardmeter::model
