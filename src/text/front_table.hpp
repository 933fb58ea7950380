#pragma once
// The front as `shardmeter search` prints it: one row per plan, cheapest first. Plan columns (GPU type,
// islands x GPUs, tp/pp/cp, ep/etp when the front has MoE plans, sharding, micro/global batch, recompute, sync), then total cost, throughput,
// wall-clock, MFU and the bottleneck, then any objective not already shown, then which row is the cheapest, the knee
// and the fastest (results/front/front_picks.hpp: the picks report and export make).
#include <span>
#include <string>
#include <vector>

#include "results/front/plan_point.hpp"
#include "model/spec/objective.hpp"

namespace shardmeter::cli {

// A GPU type whose (type, row's plan.stack) pair is listed in `uncalibrated_gpu_stacks` ("b200:torch_fsdp2",
// results/front/calibration_marks.hpp) is marked with '*'.
std::string format_front_table(std::span<const results::PlanPoint> front, const std::vector<model::Objective>& objectives,
                               std::span<const std::string> uncalibrated_gpu_stacks = {});

// The legend of the rows marked '!': one line per MoE accuracy warning (docs/model.md §15.8) that some row's
// estimate carries, "! name: text"; empty when none does.
std::string format_front_warnings(std::span<const results::PlanPoint> front);

}  // namespace shardmeter::cli
