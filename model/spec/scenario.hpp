#pragma once
// A whole scenario as one plain value: what the model evaluates and what the search copies and varies.
#include <type_traits>

#include "model/spec/cluster_spec.hpp"
#include "model/spec/model_spec.hpp"
#include "model/spec/plan_spec.hpp"
#include "model/spec/training_spec.hpp"

namespace shardmeter::model {

// Memory the runtime takes that the model's tensors cannot use (docs/model.md §7.8).
struct RuntimeSpec {
  double fragmentation_fraction = 0.07;   // allocator fragmentation reserve, fraction of HBM (5-10 %)
  double runtime_overhead_bytes = 1.0e9;  // CUDA context + NCCL buffers (0.5-1 GB)
};

// Failures, checkpointing and restarts (issue: goodput).
struct GoodputSpec {
  bool enabled = true;
  double failures_per_gpu_hour = 0;   // 0 = the published default (see model/job/goodput.hpp)
  double checkpoint_write_s = 60;            // blocking time per checkpoint, when no storage bandwidth is given
  double storage_bytes_per_s_per_node = 0;   // > 0: write time = checkpoint state per node / this (§10.2)
  bool async_checkpoint = false;             // with a storage bandwidth: only the copy to host memory blocks
  double restart_s = 600;                    // job restart (synchronous), or an island's absence (DiLoCo)
};

struct Scenario {
  ModelSpec model;
  TrainingSpec training;
  ClusterSpec cluster;
  PlanSpec plan;
  RuntimeSpec runtime;
  GoodputSpec goodput;
};

static_assert(std::is_trivially_copyable_v<Scenario>, "the search copies scenarios by value");

}  // namespace shardmeter::model
