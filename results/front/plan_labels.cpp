#include "results/front/plan_labels.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/spec/enum_names.hpp"

namespace shardmeter::results {

std::vector<IslandEntryView> island_entries(const PlanRecord& row) {
  std::vector<IslandEntryView> entries;
  const model::ClusterSpec& cluster = row.scenario.cluster;
  for (int i = 0; i < cluster.island_entries; ++i) {
    const model::IslandSpec& spec = cluster.islands[static_cast<std::size_t>(i)];
    IslandEntryView e;
    e.name = std::string(spec.name.view());
    e.gpu = std::string(spec.gpu.name.view());
    e.gpus = spec.gpus;
    e.count = spec.count;
    e.gpus_per_node = spec.gpus_per_node;
    e.nodes = spec.nodes();
    e.spot = spec.spot;
    e.price_usd_per_gpu_hour = spec.price_usd_per_gpu_hour;
    entries.push_back(std::move(e));
  }
  return entries;
}

std::string gpu_label(const PlanRecord& row) {
  std::vector<std::string> gpus;
  for (const IslandEntryView& e : island_entries(row))
    if (std::find(gpus.begin(), gpus.end(), e.gpu) == gpus.end()) gpus.push_back(e.gpu);
  std::string out;
  for (const std::string& g : gpus) out += (out.empty() ? "" : " + ") + g;
  return out;
}

std::string islands_label(const PlanRecord& row) {
  const std::vector<IslandEntryView> entries = island_entries(row);
  const bool same_size = std::all_of(entries.begin(), entries.end(),
                                     [&](const IslandEntryView& e) { return e.gpus == entries.front().gpus; });
  if (!entries.empty() && same_size)
    return fmt::format("{} x {}", row.scenario.cluster.total_islands(), entries.front().gpus);
  std::string out;
  for (const IslandEntryView& e : entries) out += (out.empty() ? "" : " + ") + fmt::format("{} x {}", e.count, e.gpus);
  return out;
}

std::string parallel_label(const PlanRecord& row) {
  const model::PlanSpec& p = row.scenario.plan;
  std::string out = fmt::format("tp {} / pp {} / cp {}", p.tp, p.pp, p.cp);
  if (p.interleave > 1) out += fmt::format(" (v {})", p.interleave);
  if (p.sequence_parallel && p.tp > 1) out += " +sp";  // no effect without TP
  return out;
}

std::string sharding_label(const PlanRecord& row) {
  const model::PlanSpec& p = row.scenario.plan;
  switch (p.sharding) {
    case model::Sharding::none:
    case model::Sharding::zero1:
    case model::Sharding::zero2:
    case model::Sharding::fsdp: break;
    case model::Sharding::hsdp:
      return p.shard_group > 0 ? fmt::format("hsdp (group {})", p.shard_group) : "hsdp (group = node)";
  }
  return std::string(model::enum_name(p.sharding));
}

std::string batch_label(const PlanRecord& row) {
  return fmt::format("{} / {}", row.scenario.training.micro_batch, row.scenario.training.global_batch);
}

std::string sync_label(const PlanRecord& row) {
  const model::PlanSpec& p = row.scenario.plan;
  std::string out(model::enum_name(p.sync));
  switch (p.sync) {
    case model::SyncMode::synchronous: break;
    case model::SyncMode::diloco: out += fmt::format(" (H {}, {}-bit)", p.diloco.inner_steps, p.diloco.outer_bits); break;
  }
  if (p.pp_across_islands) out += ", pp across islands";
  return out;
}

std::string plan_summary(const PlanRecord& row) {
  // Files before the stack column say nothing of it.
  const std::string stack =
      row.stack_in_row ? ", stack " + std::string(model::enum_name(row.scenario.plan.stack)) : std::string();
  return fmt::format("{}, {}, {}, {}{}, batch {}, recompute {}, {}", gpu_label(row), islands_label(row),
                     parallel_label(row), sharding_label(row), stack, batch_label(row),
                     model::enum_name(row.scenario.plan.recompute), sync_label(row));
}

}  // namespace shardmeter::results
