#include "results/front/plan_labels.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace shardmeter::results {

std::vector<IslandEntryView> island_entries(const Row& row) {
  std::vector<IslandEntryView> entries;
  const std::int64_t n = integer(row, "island_entries");
  for (std::int64_t i = 0; i < n; ++i) {
    const std::string p = "island" + std::to_string(i) + "_";
    IslandEntryView e;
    e.name = text(row, p + "name");
    e.gpu = text(row, p + "gpu");
    e.gpus = integer(row, p + "gpus");
    e.count = integer(row, p + "count");
    e.gpus_per_node = integer(row, p + "gpus_per_node");
    e.nodes = integer(row, p + "nodes");
    e.spot = flag(row, p + "spot");
    e.price_usd_per_gpu_hour = number(row, p + "price_usd_per_gpu_hour");
    entries.push_back(std::move(e));
  }
  return entries;
}

std::string gpu_label(const Row& row) {
  std::vector<std::string> gpus;
  for (const IslandEntryView& e : island_entries(row))
    if (std::find(gpus.begin(), gpus.end(), e.gpu) == gpus.end()) gpus.push_back(e.gpu);
  std::string out;
  for (const std::string& g : gpus) out += (out.empty() ? "" : " + ") + g;
  return out;
}

std::string islands_label(const Row& row) {
  const std::vector<IslandEntryView> entries = island_entries(row);
  const bool same_size = std::all_of(entries.begin(), entries.end(),
                                     [&](const IslandEntryView& e) { return e.gpus == entries.front().gpus; });
  if (!entries.empty() && same_size) return fmt::format("{} x {}", integer(row, "islands"), entries.front().gpus);
  std::string out;
  for (const IslandEntryView& e : entries) out += (out.empty() ? "" : " + ") + fmt::format("{} x {}", e.count, e.gpus);
  return out;
}

std::string parallel_label(const Row& row) {
  std::string out = fmt::format("tp {} / pp {} / cp {}", integer(row, "tp"), integer(row, "pp"), integer(row, "cp"));
  if (integer(row, "interleave") > 1) out += fmt::format(" (v {})", integer(row, "interleave"));
  if (flag(row, "sequence_parallel") && integer(row, "tp") > 1) out += " +sp";  // no effect without TP
  return out;
}

std::string sharding_label(const Row& row) {
  const std::string& sharding = text(row, "sharding");
  if (sharding != "hsdp") return sharding;
  const std::int64_t group = integer(row, "shard_group");
  return group > 0 ? fmt::format("hsdp (group {})", group) : "hsdp (group = node)";
}

std::string batch_label(const Row& row) {
  return fmt::format("{} / {}", integer(row, "micro_batch"), integer(row, "global_batch"));
}

std::string sync_label(const Row& row) {
  const std::string& sync = text(row, "sync");
  std::string out = sync;
  if (sync == "diloco")
    out += fmt::format(" (H {}, {}-bit)", integer(row, "diloco_inner_steps"), integer(row, "diloco_outer_bits"));
  if (flag(row, "pp_across_islands")) out += ", pp across islands";
  return out;
}

std::string plan_summary(const Row& row) {
  // Files before the stack column say nothing of it.
  const std::string stack = row.find("stack") != row.end() ? ", stack " + text(row, "stack") : "";
  return fmt::format("{}, {}, {}, {}{}, batch {}, recompute {}, {}", gpu_label(row), islands_label(row),
                     parallel_label(row), sharding_label(row), stack, batch_label(row), text(row, "recompute"),
                     sync_label(row));
}

}  // namespace shardmeter::results
