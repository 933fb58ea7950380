#pragma once
// The entries of the shipped catalogs, as read from them: a GPU type with its node-level defaults (gpus.yaml),
// a link type (links.yaml) and a model preset's citation (models/*.yaml). src/scenario/catalog.hpp holds them
// by name; src/scenario/gpu_fields.hpp reads a GPU entry's fields.
#include <map>
#include <string>
#include <vector>

#include "model/spec/enums.hpp"
#include "model/spec/hardware_spec.hpp"

namespace shardmeter::cli {

// Node-level defaults a GPU type comes with; an island may override each.
// The constants `shardmeter calibrate` fits per (GPU family, stack).
struct StackEfficiency {
  double gemm = 0;
  double gemm_half_dim = 0;
  double attention = 0;
  double contention_scale = 1;
};

struct GpuEntry {
  model::GpuSpec gpu;                  // scaleup.type names the scale-up link; efficiency/latency resolved from it
  int gpus_per_node = 8;
  double node_network_gbps = 0;        // Gbit/s per node (scale-out)
  std::string scaleout_link;           // key into links
  double price_high_usd_per_gpu_hour = 0;       // hyperscaler list price (reports only)
  double committed_1y_price_usd_per_gpu_hour = 0;   // 1-year commitment (an island's price_model); 0 = unknown
  double committed_3y_price_usd_per_gpu_hour = 0;   // 3-year commitment; 0 = unknown
  std::string family;                           // types sharing a die share calibrated constants (default: name)
  std::string calibration = "uncalibrated";     // fitted | family | uncalibrated (src/scenario/calibration_status.hpp)
  // calibration_stacks: the stacks (plan.stack) `calibration` holds for; on any other stack the type is
  // uncalibrated. Empty: every stack (the key left out).
  std::vector<model::Stack> calibration_stacks;
  std::map<std::string, std::string> sources;   // field -> citation
  // efficiency.stacks: the constants calibrated for one software stack (docs/model.md §6.7, §13), applied by
  // parse_scenario to islands of this type without their own `efficiency:` when plan.stack names that stack.
  std::map<model::Stack, StackEfficiency> by_stack;
};

struct LinkEntry {
  double efficiency = 1;
  double latency_s = 0;
  std::string source;
};

struct PresetInfo {
  std::string source;              // citation for the dimensions
  double published_params_b = 0;   // published parameter count, billions
  double published_active_b = 0;   // mixture of experts: published parameters per token, billions (0 = dense)
  bool active_excludes_embedding = false;  // the publisher's active count leaves out the input embedding table
};

}  // namespace shardmeter::cli
