#pragma once
// Scenario fields that consistency checks can blame. The CLI maps each to its dotted key path and to the
// line and column where the user wrote it.
#include <cstdint>
#include <string_view>

namespace shardmeter::model {

enum class FieldId : std::uint8_t {
  none,
  model_layers,
  model_heads,
  model_kv_heads,
  model_ffn_hidden,
  model_seq_len,
  training_global_batch,
  training_micro_batch,
  island_gpus,            // cluster.islands.N.gpus
  island_gpus_per_node,   // cluster.islands.N.gpus_per_node
  island_count,           // cluster.islands.N.count
  cluster_islands,
  plan_tp,
  plan_pp,
  plan_cp,
  plan_interleave,
  plan_shard_group,
  plan_sync,
  plan_pp_across_islands,
};

// Dotted path; island fields carry a '#' where the island index goes ("cluster.islands.#.gpus").
std::string_view field_path_pattern(FieldId field) noexcept;

}  // namespace shardmeter::model
