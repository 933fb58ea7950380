#pragma once
// The scenario fields the consistency rules read (and so may blame), with the two things the layers above need
// of each: its key path (src/scenario turns a blamed field into file:line:column) and its bytes inside the
// trivially copyable Scenario (the search prunes by bytes without knowing fields; search/README.md, "Pruning").
// One table in field_id.cpp gives both, offset and size taken from the member itself.
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
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
  island_gpus,              // cluster.islands.N.gpus
  island_gpus_per_node,     // cluster.islands.N.gpus_per_node
  island_count,             // cluster.islands.N.count
  island_gpu_name,          // cluster.islands.N.gpu (the catalog name; GPU quotas read it)
  cluster_islands,          // the number of island entries
  cluster_wan,              // the default WAN link
  cluster_links,            // the per-pair WAN link overrides
  cluster_link_overrides,   // how many of them are set
  plan_tp,
  plan_pp,
  plan_cp,
  plan_interleave,
  plan_sharding,
  plan_shard_group,
  plan_sync,
  plan_pp_across_islands,
  plan_batch_split,
  model_experts,
  plan_ep,
  plan_etp,
  training_precision,
  training_fp8_params,
  training_fp8_recipe,
  plan_stack,
  island_gpu_fp8,           // cluster.islands.N.fp8_tflops (the GPU's dense fp8 peak; 0 = no fp8 tensor cores)
  plan_pp_first_stage_layers,
  plan_pp_last_stage_layers,
  plan_pp_embedding_layers,
  plan_pp_head_layers,
  plan_pipeline_schedule,
  plan_fp8_activation_cache,
  island_gpu_compute_capability,  // cluster.islands.N.compute_capability (the GPU's CUDA compute capability x 10)
  // Appended (issue 29): host-memory offload and what it depends on (docs/model.md §7.15, §7.16).
  plan_recompute,
  plan_activation_offload_layers,
  plan_optimizer_offload_fraction,
  island_gpu_host_link,     // cluster.islands.N.host_link_gbps (0 = unknown)
  count_,  // number of ids (keep last)
};

inline constexpr int kFieldIdCount = static_cast<int>(FieldId::count_);

// Dotted path; island fields carry a '#' where the island index goes ("cluster.islands.#.gpus").
std::string_view field_path_pattern(FieldId field) noexcept;

// True for the fields of one island entry (island_gpus, island_gpus_per_node, island_count, island_gpu_name,
// island_gpu_fp8).
bool is_island_field(FieldId field) noexcept;

// A set of fields (what a rule reads), a plain bit set.
class FieldSet {
public:
  constexpr FieldSet() = default;
  constexpr FieldSet(std::initializer_list<FieldId> fields) {
    for (FieldId f : fields) bits_ |= bit(f);
  }
  constexpr bool contains(FieldId f) const { return (bits_ & bit(f)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr FieldSet& operator|=(FieldSet other) {
    bits_ |= other.bits_;
    return *this;
  }
  friend constexpr FieldSet operator|(FieldSet a, FieldSet b) { return a |= b; }
  friend constexpr bool operator==(FieldSet, FieldSet) = default;

private:
  static constexpr std::uint64_t bit(FieldId f) { return std::uint64_t{1} << static_cast<unsigned>(f); }
  std::uint64_t bits_ = 0;
};
static_assert(kFieldIdCount <= 64, "FieldSet holds one bit per FieldId");

struct ByteRange {
  std::size_t offset = 0;
  std::size_t size = 0;
};

// A short fixed-capacity list of byte ranges (no allocation).
struct ByteRanges {
  static constexpr int kCapacity = 112;  // every field of field_id.cpp, island fields once per island (static_assert there)
  std::array<ByteRange, kCapacity> items{};
  int count = 0;

  void add(ByteRange r) noexcept {
    if (r.size > 0 && count < kCapacity) items[static_cast<std::size_t>(count++)] = r;
  }
  const ByteRange* begin() const noexcept { return items.data(); }
  const ByteRange* end() const noexcept { return items.data() + count; }
};

// Bytes of one field inside a Scenario. Island fields need `island` in [0, kMaxIslands); other fields ignore it.
// FieldId::none and out-of-range islands give an empty range.
ByteRange field_bytes(FieldId field, int island) noexcept;
// Bytes of every field of the set, island fields for every island entry.
ByteRanges field_bytes(FieldSet fields) noexcept;

}  // namespace shardmeter::model
