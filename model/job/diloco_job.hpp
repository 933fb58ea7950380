#pragma once
// A DiLoCo job: each island trains its own replica for H inner steps, then the islands all-reduce
// pseudo-gradients over the WAN (the formulas of one outer synchronisation are in model/job/diloco.hpp).
#include "model/step/job_step.hpp"
#include "model/kernels/parameters.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

JobStep diloco_step(const Scenario& scenario, const ParameterCounts& params) noexcept;

}  // namespace shardmeter::model
