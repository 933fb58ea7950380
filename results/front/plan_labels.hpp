#pragma once
// How a decoded front row's plan (results/front/row_decoder.hpp) reads in reports, the nightly index and export
// headers: GPU type, islands x GPUs, parallel degrees, sharding, batches, recompute, sync. From the typed plan
// (PlanRecord::scenario), never from the row's text.
#include <string>
#include <vector>

#include "results/front/row_decoder.hpp"

namespace shardmeter::results {

// One island entry of a row: `count` identical islands of `gpus` GPUs of type `gpu`.
struct IslandEntryView {
  std::string name;
  std::string gpu;
  std::int64_t gpus = 0;
  std::int64_t count = 1;
  std::int64_t gpus_per_node = 0;
  std::int64_t nodes = 0;
  bool spot = false;
  double price_usd_per_gpu_hour = 0;
};
// Entries 0 .. island_entries-1 of the row.
std::vector<IslandEntryView> island_entries(const PlanRecord& row);

// "h100-sxm", or the distinct GPU types in entry order joined by " + " ("a100-sxm-80gb + h100-sxm").
std::string gpu_label(const PlanRecord& row);
// "1 x 512", "2 x 64" (identical islands), "1 x 64 + 2 x 128" (entries that differ).
std::string islands_label(const PlanRecord& row);
// "tp 4 / pp 2 / cp 1", with " (v 2)" for interleaved stages and " +sp" for sequence parallelism (with tp > 1 only).
std::string parallel_label(const PlanRecord& row);
// "zero1", "hsdp (group 16)".
std::string sharding_label(const PlanRecord& row);
// "1 / 512" (micro / global batch, sequences).
std::string batch_label(const PlanRecord& row);
// "synchronous", "diloco (H 100, 8-bit)", "synchronous, pp across islands".
std::string sync_label(const PlanRecord& row);
// Everything in one line, for tooltips and messages (the stack when the row states it):
// "h100-sxm, 1 x 512, tp 4 / pp 2 / cp 1, zero1, batch 1 / 512, recompute selective, synchronous".
std::string plan_summary(const PlanRecord& row);

}  // namespace shardmeter::results
