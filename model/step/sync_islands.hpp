#pragma once
// Synchronous training across islands: every island steps together; data parallelism (and optionally the
// pipeline) spans them, with the extra WAN stage in the gradient reduction and the batch split between islands.
#include "model/step/job_step.hpp"
#include "model/kernels/parameters.hpp"
#include "model/spec/scenario.hpp"

namespace shardmeter::model {

JobStep synchronous_step(const Scenario& scenario, const ParameterCounts& params) noexcept;

// PyTorch DDP's default bucket_cap_mb = 25 (MiB): gradients are reduced in buckets of this size.
inline constexpr double kGradientBucketBytes = 25.0 * 1024 * 1024;

// Exposed time of a WAN gradient all-reduce of `comm_s` in `buckets` equal buckets that become ready evenly over
// `window_s` (the last micro-batch's backward) and queue on the WAN link [docs/model.md §8.2]: the last bucket, or
// what the link cannot keep up with, max(C/K, C - W(1 - 1/K)); all of it without overlap.
double bucketed_exposed_s(double comm_s, double buckets, double window_s, bool overlap) noexcept;

}  // namespace shardmeter::model
