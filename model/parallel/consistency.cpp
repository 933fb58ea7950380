#include "model/parallel/consistency.hpp"

#include <algorithm>
#include <array>

#include "model/parallel/fp8.hpp"
#include "model/parallel/fp8_memory.hpp"
#include "model/parallel/layout.hpp"
#include "model/parallel/pipeline_stages.hpp"

namespace shardmeter::model {

namespace {

using F = FieldId;

// What the shared helpers read, for the rules' inputs.
constexpr FieldSet kTotalIslands = {F::cluster_islands, F::island_count};  // ClusterSpec::total_islands()
constexpr FieldSet kStagesPerIsland = kTotalIslands | FieldSet{F::plan_pp, F::plan_pp_across_islands};
// island_data_parallel(), and total_data_parallel() (the same fields over every entry).
constexpr FieldSet kDataParallel = kStagesPerIsland | FieldSet{F::island_gpus, F::plan_tp, F::plan_cp};
// stage_layers() and the split rules (model/parallel/pipeline_stages.hpp).
constexpr FieldSet kStageSplit = {F::plan_pp, F::plan_interleave, F::model_layers, F::plan_pp_first_stage_layers,
                                  F::plan_pp_last_stage_layers, F::plan_pp_embedding_layers, F::plan_pp_head_layers};

const IslandSpec& island_at(const Scenario& s, int i) { return s.cluster.islands[static_cast<std::size_t>(i)]; }

// What a failed rule blames: the value to change and the value it conflicts with.
Blame blame(FieldId field, double value, FieldId other, double other_value, int island = -1) {
  return Blame{field, value, other, other_value, island};
}

// ---- the rules -------------------------------------------------------------------------------------------------

Blame tp_divides_heads(const Scenario& s, int) noexcept {
  if (s.model.heads % s.plan.tp == 0) return {};
  return blame(F::plan_tp, s.plan.tp, F::model_heads, s.model.heads);
}

Blame tp_divides_kv_heads(const Scenario& s, int) noexcept {
  if (s.model.kv_heads % s.plan.tp == 0) return {};
  return blame(F::plan_tp, s.plan.tp, F::model_kv_heads, s.model.kv_heads);
}

Blame tp_divides_ffn(const Scenario& s, int) noexcept {
  if (s.model.ffn_hidden % s.plan.tp == 0) return {};
  return blame(F::plan_tp, s.plan.tp, F::model_ffn_hidden, s.model.ffn_hidden);
}

// The balanced split (docs/model.md §5.4) needs no more virtual stages than effective layers (torchtitan
// pipeline_parallel.py generate_llm_fqn_per_model_part: "Number of stages ... cannot be greater than effective
// layers"); stages may differ by one layer, interleaved or not. Megatron's explicit counts are checked below.
Blame layers_fill_the_pipeline(const Scenario& s, int) noexcept {
  const PlanSpec& plan = s.plan;
  if (plan.pp <= 1 || explicit_stage_layers(plan)) return {};
  const std::int64_t effective = effective_pipeline_layers(s.model, plan);
  if (std::int64_t{plan.pp} * plan.interleave <= effective) return {};
  const bool interleaved = plan.interleave > 1;
  return blame(interleaved ? F::plan_interleave : F::plan_pp, interleaved ? plan.interleave : plan.pp,
               F::model_layers, s.model.layers);
}

// The embedding and the head may weigh at most the smallest virtual stage's E / N effective layers (torchtitan
// generate_llm_fqn_per_model_part: "input_weight ... exceeds minimum layers per stage").
Blame split_weights_fit_a_stage(const Scenario& s, int) noexcept {
  const PlanSpec& plan = s.plan;
  if (plan.pp <= 1 || explicit_stage_layers(plan)) return {};
  const std::int64_t effective = effective_pipeline_layers(s.model, plan);
  const std::int64_t base = effective / std::max<std::int64_t>(1, std::int64_t{plan.pp} * plan.interleave);
  if (plan.pp_embedding_layers > base)
    return blame(F::plan_pp_embedding_layers, plan.pp_embedding_layers, F::plan_pp, plan.pp);
  if (plan.pp_head_layers > base) return blame(F::plan_pp_head_layers, plan.pp_head_layers, F::plan_pp, plan.pp);
  return {};
}

// Megatron-Core's uneven first / last stages, with its own checks (Megatron-LM core_v0.19.0
// megatron/core/transformer/transformer_config.py __post_init__, "Uneven PP" and the check before it): not together
// with the embedding / loss accounting; each count > 0 (0 here means not set); the remaining layers split evenly over
// the remaining ranks, none left over when no rank remains; with interleaving every rank's count divisible by v.
Blame megatron_stage_layers_valid(const Scenario& s, int) noexcept {
  const PlanSpec& plan = s.plan;
  if (!explicit_stage_layers(plan)) return {};
  const FieldId given = plan.pp_first_stage_layers > 0 ? F::plan_pp_first_stage_layers : F::plan_pp_last_stage_layers;
  const double given_value = plan.pp_first_stage_layers > 0 ? plan.pp_first_stage_layers : plan.pp_last_stage_layers;
  if (plan.pp <= 1) return blame(given, given_value, F::plan_pp, plan.pp);
  if (plan.pp_embedding_layers > 0)
    return blame(F::plan_pp_embedding_layers, plan.pp_embedding_layers, given, given_value);
  if (plan.pp_head_layers > 0) return blame(F::plan_pp_head_layers, plan.pp_head_layers, given, given_value);
  const std::int64_t rest_layers =
      std::int64_t{s.model.layers} - plan.pp_first_stage_layers - plan.pp_last_stage_layers;
  const int rest_stages = plan.pp - (plan.pp_first_stage_layers > 0 ? 1 : 0) - (plan.pp_last_stage_layers > 0 ? 1 : 0);
  if (rest_layers < 0 || (rest_layers > 0) != (rest_stages > 0) ||
      (rest_stages > 0 && rest_layers % rest_stages != 0))
    return blame(given, given_value, F::model_layers, s.model.layers);
  const int v = plan.interleave;
  if (v > 1) {
    if (plan.pp_first_stage_layers % v != 0)
      return blame(F::plan_pp_first_stage_layers, plan.pp_first_stage_layers, F::plan_interleave, v);
    if (plan.pp_last_stage_layers % v != 0)
      return blame(F::plan_pp_last_stage_layers, plan.pp_last_stage_layers, F::plan_interleave, v);
    if (rest_stages > 0 && (rest_layers / rest_stages) % v != 0) return blame(given, given_value, F::plan_interleave, v);
  }
  return {};
}

// Context parallelism splits each sequence into 2*cp chunks for causal load balance (Megatron-Core CP).
Blame cp_divides_sequence(const Scenario& s, int) noexcept {
  if (s.plan.cp <= 1 || s.model.seq_len % (2 * s.plan.cp) == 0) return {};
  return blame(F::plan_cp, s.plan.cp, F::model_seq_len, s.model.seq_len);
}

Blame interleave_has_pipeline(const Scenario& s, int) noexcept {
  if (s.plan.interleave <= 1 || s.plan.pp != 1) return {};
  return blame(F::plan_interleave, s.plan.interleave, F::plan_pp, s.plan.pp);
}

// plan.fp8_activation_cache stores activations in fp8 and E5M6 beside fp8 GEMMs (§7.12): fp8 training only.
Blame fp8_activation_cache_needs_fp8(const Scenario& s, int) noexcept {
  if (!s.plan.fp8_activation_cache || s.training.precision == Precision::fp8) return {};
  return blame(F::plan_fp8_activation_cache, 1, F::training_precision, static_cast<double>(s.training.precision));
}

// Megatron-Core's activation offload (--cpu-offloading-num-layers; docs/model.md §7.15): TE's offload context,
// no pipeline, no recompute, fewer blocks than the model has (TransformerConfig.__post_init__, core_v0.19.0).
Blame activation_offload_supported(const Scenario& s, int) noexcept {
  const PlanSpec& p = s.plan;
  const double n = p.activation_offload_layers;
  if (n == 0) return {};
  if (p.stack != Stack::megatron_te) return blame(F::plan_activation_offload_layers, n, F::plan_stack, static_cast<double>(p.stack));
  if (p.pp > 1) return blame(F::plan_activation_offload_layers, n, F::plan_pp, p.pp);
  if (p.recompute != Recompute::none)
    return blame(F::plan_activation_offload_layers, n, F::plan_recompute, static_cast<double>(p.recompute));
  if (p.activation_offload_layers >= s.model.layers) return blame(F::plan_activation_offload_layers, n, F::model_layers, s.model.layers);
  return {};
}

// Optimizer offload (docs/model.md §7.16): a sharded optimizer (Megatron's precision-aware optimizer needs the
// distributed optimizer, DeepSpeed offloads ZeRO stages 1-3, FSDP offloads its shards), all or nothing on FSDP,
// and on Megatron fp8 parameter gathers only with delayed scaling.
Blame optimizer_offload_supported(const Scenario& s, int) noexcept {
  const PlanSpec& p = s.plan;
  const double f = p.optimizer_offload_fraction;
  if (f == 0) return {};
  const bool fsdp_stack = p.stack == Stack::torch_fsdp1 || p.stack == Stack::torch_fsdp2;
  const bool fsdp = p.sharding == Sharding::fsdp || p.sharding == Sharding::hsdp;
  if (p.sharding == Sharding::none || (fsdp_stack && !fsdp))
    return blame(F::plan_optimizer_offload_fraction, f, F::plan_sharding, static_cast<double>(p.sharding));
  if (fsdp_stack && f != 1) return blame(F::plan_optimizer_offload_fraction, f, F::plan_stack, static_cast<double>(p.stack));
  const bool delayed = s.training.fp8_recipe == Fp8Recipe::delayed || s.training.fp8_recipe == Fp8Recipe::stack_default;
  if (is_megatron_core(p.stack) && s.training.fp8_params && !delayed)
    return blame(F::plan_optimizer_offload_fraction, f, F::training_fp8_recipe, static_cast<double>(s.training.fp8_recipe));
  return {};
}

// Either offload crosses the GPU's host link, which must be known (catalog or island).
Blame offload_has_host_link(const Scenario& s, int i) noexcept {
  const PlanSpec& p = s.plan;
  if (island_at(s, i).gpu.host_link_bytes_per_s > 0) return {};
  if (p.activation_offload_layers > 0)
    return blame(F::plan_activation_offload_layers, p.activation_offload_layers, F::island_gpu_host_link, 0, i);
  if (p.optimizer_offload_fraction > 0)
    return blame(F::plan_optimizer_offload_fraction, p.optimizer_offload_fraction, F::island_gpu_host_link, 0, i);
  return {};
}

Blame diloco_has_islands(const Scenario& s, int) noexcept {
  if (s.plan.sync != SyncMode::diloco || s.cluster.total_islands() >= 2) return {};
  return blame(F::plan_sync, 0, F::cluster_islands, s.cluster.total_islands());
}

// Every pair of islands (two of one entry included) needs a WAN link with some bandwidth.
Blame islands_have_wan_links(const Scenario& s, int) noexcept {
  const ClusterSpec& c = s.cluster;
  if (c.total_islands() <= 1) return {};
  for (int a = 0; a < c.island_entries; ++a)
    for (int b = a; b < c.island_entries; ++b) {
      const bool pair_exists = a != b || island_at(s, a).count > 1;
      if (pair_exists && c.link(a, b).bytes_per_s <= 0)
        return blame(F::cluster_islands, c.total_islands(), F::none, 0, a);
    }
  return {};
}

Blame pipeline_spans_whole_islands(const Scenario& s, int) noexcept {
  if (!s.plan.pp_across_islands) return {};
  const int islands = s.cluster.total_islands();
  if (s.plan.pp >= islands && s.plan.pp % islands == 0) return {};
  return blame(F::plan_pp, s.plan.pp, F::cluster_islands, islands);
}

Blame pipeline_across_islands_is_synchronous(const Scenario& s, int) noexcept {
  if (!s.plan.pp_across_islands || s.plan.sync != SyncMode::diloco) return {};
  return blame(F::plan_pp_across_islands, 1, F::plan_sync, 1);
}

// -- island rules: i is the island entry

Blame island_is_whole_nodes(const Scenario& s, int i) noexcept {
  const IslandSpec& island = island_at(s, i);
  if (island.gpus < island.gpus_per_node || island.gpus % island.gpus_per_node == 0) return {};
  return blame(F::island_gpus_per_node, island.gpus_per_node, F::island_gpus, island.gpus, i);
}

// tp*cp*pp must divide the island; blame the first factor that breaks divisibility. Products in 64 bits: the
// search may combine large degrees.
Blame tp_divides_island(const Scenario& s, int i) noexcept {
  const IslandSpec& island = island_at(s, i);
  if (island.gpus % s.plan.tp == 0) return {};
  return blame(F::plan_tp, s.plan.tp, F::island_gpus, island.gpus, i);
}

Blame tp_cp_divides_island(const Scenario& s, int i) noexcept {
  const IslandSpec& island = island_at(s, i);
  if (island.gpus % (std::int64_t{s.plan.tp} * s.plan.cp) == 0) return {};
  return blame(F::plan_cp, s.plan.cp, F::island_gpus, island.gpus, i);
}

Blame tp_cp_pp_divides_island(const Scenario& s, int i) noexcept {
  const IslandSpec& island = island_at(s, i);
  if (island.gpus % (std::int64_t{s.plan.tp} * s.plan.cp * stages_per_island(s)) == 0) return {};
  return blame(F::plan_pp, s.plan.pp, F::island_gpus, island.gpus, i);
}

// HSDP: a shard group is a whole number of TP x CP groups, and its data-parallel ranks divide the island's.
Blame shard_group_divides_island(const Scenario& s, int i) noexcept {
  if (s.plan.sharding != Sharding::hsdp) return {};
  const IslandSpec& island = island_at(s, i);
  const HsdpGroup group = hsdp_group(island, s.plan);
  const int dp = island_data_parallel(s, i);
  if (group.gpus % (s.plan.tp * s.plan.cp) == 0 && dp % std::max(group.ranks, 1) == 0 && group.ranks <= dp) return {};
  return blame(F::plan_shard_group, group.gpus, F::island_gpus, island.gpus, i);
}

// -- job rules again

Blame global_batch_fills_replicas(const Scenario& s, int) noexcept {
  const TrainingSpec& tr = s.training;
  if (s.plan.sync == SyncMode::diloco) {
    // Each island trains an equal share of the global batch with its own replicas.
    const int islands = s.cluster.total_islands();
    for (int i = 0; i < s.cluster.island_entries; ++i) {
      const std::int64_t quantum = static_cast<std::int64_t>(tr.micro_batch) * island_data_parallel(s, i) * islands;
      if (quantum <= 0 || tr.global_batch % quantum != 0)
        return blame(F::training_global_batch, static_cast<double>(tr.global_batch), F::training_micro_batch,
                     static_cast<double>(quantum), i);
    }
    return {};
  }
  const int dp = total_data_parallel(s);
  const bool equal_split = s.cluster.island_entries == 1 || s.plan.batch_split == BatchSplit::equal;
  const std::int64_t quantum = static_cast<std::int64_t>(tr.micro_batch) * (equal_split ? dp : 1);
  if (dp > 0 && tr.global_batch % quantum == 0 && tr.global_batch >= static_cast<std::int64_t>(tr.micro_batch) * dp)
    return {};
  return blame(F::training_global_batch, static_cast<double>(tr.global_batch), F::training_micro_batch,
               static_cast<double>(tr.micro_batch * std::max(dp, 1)));
}

// DualPipe (docs/model.md §5.8; deepseek-ai/DualPipe@bb214e8 DualPipe.step asserts "num_ranks % 2 == 0" and
// "num_chunks % 2 == 0 and num_chunks >= num_ranks * 2", and pairs stage r with stage pp - 1 - r of one model chunk
// each, so no interleaving): an even pp >= 2, interleave 1, and for one island entry an even micro-batch count of at
// least 2 pp. Runs after the batch rule, which makes the data-parallel degree positive.
Blame dualpipe_pipeline_valid(const Scenario& s, int) noexcept {
  if (s.plan.pipeline_schedule != PipelineSchedule::dualpipe) return {};
  if (s.plan.interleave > 1) return blame(F::plan_pipeline_schedule, 1, F::plan_interleave, s.plan.interleave);
  if (s.plan.pp < 2 || s.plan.pp % 2 != 0) return blame(F::plan_pipeline_schedule, 1, F::plan_pp, s.plan.pp);
  if (s.cluster.island_entries != 1) return {};
  const std::int64_t microbatches =
      s.training.global_batch / (static_cast<std::int64_t>(s.training.micro_batch) * total_data_parallel(s));
  if (microbatches % 2 == 0 && microbatches >= 2 * std::int64_t{s.plan.pp}) return {};
  return blame(F::plan_pipeline_schedule, 1, F::training_global_batch, static_cast<double>(s.training.global_batch));
}

// The interleaved schedule of one island entry needs a micro-batch count that is a multiple of pp. Runs after
// the batch rule, which makes the data-parallel degree positive.
Blame interleave_divides_microbatches(const Scenario& s, int) noexcept {
  if (s.plan.interleave <= 1 || s.cluster.island_entries != 1) return {};
  const std::int64_t microbatches =
      s.training.global_batch / (static_cast<std::int64_t>(s.training.micro_batch) * total_data_parallel(s));
  if (microbatches % s.plan.pp == 0) return {};
  return blame(F::plan_interleave, s.plan.interleave, F::plan_pp, s.plan.pp);
}

// Expert parallelism (docs/model.md §15.4): EP splits the routed experts (Megatron: "Number of experts should be a
// multiple of expert model parallel_size"); a dense model has none to split.
Blame ep_divides_experts(const Scenario& s, int) noexcept {
  const int experts = s.model.moe.experts;
  if (experts == 0 && s.plan.ep == 1 && s.plan.etp == 1) return {};
  if (experts > 0 && experts % s.plan.ep == 0) return {};
  const bool blame_etp = experts == 0 && s.plan.ep == 1;
  return blame(blame_etp ? F::plan_etp : F::plan_ep, blame_etp ? s.plan.etp : s.plan.ep, F::model_experts, experts);
}

// The expert layers fold the GPUs of one pipeline stage as ETP x EP x EDP (Megatron-Core parallel folding):
// etp x ep must divide them.
Blame expert_folding_divides_island(const Scenario& s, int i) noexcept {
  const IslandSpec& island = island_at(s, i);
  const std::int64_t per_stage = island.gpus / std::max(1, stages_per_island(s));
  if (per_stage % (std::int64_t{s.plan.ep} * s.plan.etp) == 0) return {};
  return blame(F::plan_ep, s.plan.ep, F::island_gpus, static_cast<double>(island.gpus), i);
}

// fp8 (docs/model.md §2.2): the stack must run fp8 (Megatron-LM with apex and DeepSpeed of 2021 predate it), fp8
// parameters need precision fp8 and a ZeRO/FSDP that gathers them in fp8, and torchao (torch_fsdp2) has only
// current (dynamic) scaling.
Blame fp8_runs_on_stack(const Scenario& s, int) noexcept {
  const TrainingSpec& tr = s.training;
  const double stack = static_cast<double>(s.plan.stack);
  if (tr.precision == Precision::fp8 && !stack_runs_fp8(s.plan.stack))
    return blame(F::training_precision, static_cast<double>(tr.precision), F::plan_stack, stack);
  if (tr.fp8_params && tr.precision != Precision::fp8)
    return blame(F::training_fp8_params, 1, F::training_precision, static_cast<double>(tr.precision));
  if (tr.fp8_params && !stack_gathers_fp8_params(s.plan.stack))
    return blame(F::training_fp8_params, 1, F::plan_stack, stack);
  // torchao's Float8Linear has neither delayed scaling nor MXFP8 blocks (docs/model.md §2.2, §7.14).
  const bool not_torchao = tr.fp8_recipe == Fp8Recipe::delayed || tr.fp8_recipe == Fp8Recipe::mxfp8;
  if (tr.precision == Precision::fp8 && not_torchao && s.plan.stack == Stack::torch_fsdp2)
    return blame(F::training_fp8_recipe, static_cast<double>(tr.fp8_recipe), F::plan_stack, stack);
  return {};
}

// fp8 GEMMs need fp8 tensor cores: a GPU whose fp8 peak is 0 (A100, V100, ...) cannot run precision fp8; it is an
// error, not a silent 16-bit run.
Blame fp8_runs_on_gpu(const Scenario& s, int i) noexcept {
  const IslandSpec& island = island_at(s, i);
  if (s.training.precision != Precision::fp8) return {};
  if (island.gpu.peak_fp8_flops_per_s <= 0)
    return blame(F::training_precision, static_cast<double>(s.training.precision), F::island_gpu_fp8,
                 island.gpu.peak_fp8_flops_per_s, i);
  // MXFP8 needs Blackwell's block-scaled fp8 tensor cores (compute capability 10.0 or later; §7.14).
  if (s.training.fp8_recipe == Fp8Recipe::mxfp8 && !gpu_runs_mxfp8(island.gpu))
    return blame(F::training_fp8_recipe, static_cast<double>(s.training.fp8_recipe), F::island_gpu_compute_capability,
                 island.gpu.compute_capability, i);
  return {};
}

// ---- the table -------------------------------------------------------------------------------------------------

using R = RejectReason;
constexpr RuleScope kJob = RuleScope::job;
constexpr RuleScope kIsland = RuleScope::island;

constexpr std::array kRules = {
    ConsistencyRule{R::heads_not_divisible_by_tp, kJob, {F::plan_tp, F::model_heads}, &tp_divides_heads},
    ConsistencyRule{R::kv_heads_not_divisible_by_tp, kJob, {F::plan_tp, F::model_kv_heads}, &tp_divides_kv_heads},
    ConsistencyRule{R::ffn_not_divisible_by_tp, kJob, {F::plan_tp, F::model_ffn_hidden}, &tp_divides_ffn},
    ConsistencyRule{R::experts_not_divisible_by_ep, kJob, {F::plan_ep, F::plan_etp, F::model_experts},
                    &ep_divides_experts},
    ConsistencyRule{R::layers_not_divisible_by_pipeline, kJob, kStageSplit, &layers_fill_the_pipeline},
    ConsistencyRule{R::pipeline_split_invalid, kJob, kStageSplit, &split_weights_fit_a_stage},
    ConsistencyRule{R::pipeline_split_invalid, kJob, kStageSplit, &megatron_stage_layers_valid},
    ConsistencyRule{R::seq_not_divisible_by_cp, kJob, {F::plan_cp, F::model_seq_len}, &cp_divides_sequence},
    ConsistencyRule{R::interleave_needs_pipeline, kJob, {F::plan_interleave, F::plan_pp}, &interleave_has_pipeline},
    ConsistencyRule{R::diloco_needs_islands, kJob, kTotalIslands | FieldSet{F::plan_sync}, &diloco_has_islands},
    ConsistencyRule{R::wan_link_missing, kJob,
                    kTotalIslands | FieldSet{F::cluster_wan, F::cluster_links, F::cluster_link_overrides},
                    &islands_have_wan_links},
    ConsistencyRule{R::pipeline_exceeds_islands, kJob, kTotalIslands | FieldSet{F::plan_pp_across_islands, F::plan_pp},
                    &pipeline_spans_whole_islands},
    ConsistencyRule{R::heterogeneous_plan_invalid, kJob, {F::plan_pp_across_islands, F::plan_sync},
                    &pipeline_across_islands_is_synchronous},
    ConsistencyRule{R::island_not_whole_nodes, kIsland, {F::island_gpus, F::island_gpus_per_node},
                    &island_is_whole_nodes},
    ConsistencyRule{R::parallel_degrees_do_not_divide_gpus, kIsland, {F::island_gpus, F::plan_tp},
                    &tp_divides_island},
    ConsistencyRule{R::parallel_degrees_do_not_divide_gpus, kIsland, {F::island_gpus, F::plan_tp, F::plan_cp},
                    &tp_cp_divides_island},
    ConsistencyRule{R::parallel_degrees_do_not_divide_gpus, kIsland,
                    kStagesPerIsland | FieldSet{F::island_gpus, F::plan_tp, F::plan_cp}, &tp_cp_pp_divides_island},
    ConsistencyRule{R::expert_folding_does_not_divide_gpus, kIsland,
                    kStagesPerIsland | FieldSet{F::island_gpus, F::plan_ep, F::plan_etp},
                    &expert_folding_divides_island},
    ConsistencyRule{R::shard_group_invalid, kIsland,
                    kDataParallel | FieldSet{F::plan_sharding, F::plan_shard_group, F::island_gpus_per_node},
                    &shard_group_divides_island},
    ConsistencyRule{R::global_batch_not_divisible, kJob,
                    kDataParallel | FieldSet{F::plan_sync, F::plan_batch_split, F::training_global_batch,
                                             F::training_micro_batch},
                    &global_batch_fills_replicas},
    ConsistencyRule{R::interleave_needs_pipeline, kJob,
                    kDataParallel | FieldSet{F::plan_interleave, F::training_global_batch, F::training_micro_batch},
                    &interleave_divides_microbatches},
    ConsistencyRule{R::pipeline_split_invalid, kJob,
                    kDataParallel | FieldSet{F::plan_pipeline_schedule, F::plan_pp, F::plan_interleave,
                                             F::training_global_batch, F::training_micro_batch},
                    &dualpipe_pipeline_valid},
    // Issue 29: host-memory offload (docs/model.md §7.15, §7.16), before the fp8 rules, which stay last.
    ConsistencyRule{R::offload_not_supported, kJob,
                    {F::plan_activation_offload_layers, F::plan_stack, F::plan_pp, F::plan_recompute, F::model_layers},
                    &activation_offload_supported},
    ConsistencyRule{R::offload_not_supported, kJob,
                    {F::plan_optimizer_offload_fraction, F::plan_sharding, F::plan_stack, F::training_fp8_params,
                     F::training_fp8_recipe},
                    &optimizer_offload_supported},
    ConsistencyRule{R::offload_not_supported, kIsland,
                    {F::plan_activation_offload_layers, F::plan_optimizer_offload_fraction, F::island_gpu_host_link},
                    &offload_has_host_link},
    ConsistencyRule{R::fp8_not_supported, kJob, {F::plan_fp8_activation_cache, F::training_precision},
                    &fp8_activation_cache_needs_fp8},
    // Last, so that only this reason's inputs hold the GPU's fp8 peak (search/README.md, "Axis order").
    ConsistencyRule{R::fp8_not_supported, kJob,
                    {F::training_precision, F::training_fp8_params, F::training_fp8_recipe, F::plan_stack},
                    &fp8_runs_on_stack},
    ConsistencyRule{R::fp8_not_supported, kIsland,
                    {F::training_precision, F::training_fp8_recipe, F::island_gpu_fp8,
                     F::island_gpu_compute_capability},
                    &fp8_runs_on_gpu},
};

// One past the last island rule of the loop that starts at `first`.
constexpr std::size_t island_loop_end(std::size_t first) {
  while (first < kRules.size() && kRules[first].scope == RuleScope::island) ++first;
  return first;
}

Violation violation(const ConsistencyRule& rule, const Blame& b) {
  return Violation{rule.reason, b.field, b.value, b.other, b.other_value, b.island};
}

// The checker walks the table at compile time: each row is a constant, so every check is a direct call, and
// check_consistency (flattened) inlines them all; the first failing rule writes straight into the result, and
// failures are laid out of the straight path (each rule fails for few candidates). The search runs this on every
// candidate it looks at, and each of the three matters: with the larger rules called out of line it took 60 %
// more instructions on a consistent scenario (callgrind), and returning the Violation up through the island loop
// copied it with `rep movs`, which made unpruned searches 20 % slower than the hand-written checker it replaces.
template <std::size_t I, std::size_t End>
bool island_rules_fail(const Scenario& s, int island, Violation& out) noexcept {
  if constexpr (I == End) {
    return false;
  } else {
    constexpr ConsistencyRule rule = kRules[I];
    if (const Blame b = rule.check(s, island)) [[unlikely]] {
      out = violation(rule, b);
      return true;
    }
    return island_rules_fail<I + 1, End>(s, island, out);
  }
}

template <std::size_t I>
bool rules_fail(const Scenario& s, Violation& out) noexcept {
  if constexpr (I == kRules.size()) {
    return false;
  } else if constexpr (kRules[I].scope == RuleScope::job) {
    constexpr ConsistencyRule rule = kRules[I];
    if (const Blame b = rule.check(s, -1)) [[unlikely]] {
      out = violation(rule, b);
      return true;
    }
    return rules_fail<I + 1>(s, out);
  } else {
    constexpr std::size_t end = island_loop_end(I);
    for (int i = 0; i < s.cluster.island_entries; ++i)
      if (island_rules_fail<I, end>(s, i, out)) return true;
    return rules_fail<end>(s, out);
  }
}

}  // namespace

std::span<const ConsistencyRule> consistency_rules() noexcept { return kRules; }

[[gnu::flatten]] Violation check_consistency(const Scenario& s) noexcept {
  Violation v;
  rules_fail<0>(s, v);
  return v;
}

ConsistencyInputs consistency_inputs(RejectReason reason) noexcept {
  std::size_t last = kRules.size();
  for (std::size_t r = 0; r < kRules.size(); ++r)
    if (kRules[r].reason == reason) last = r;
  if (last == kRules.size()) return {{}, true};
  if (kRules[last].scope == RuleScope::island) last = island_loop_end(last) - 1;
  ConsistencyInputs in;
  for (std::size_t r = 0; r <= last; ++r) {
    in.fields |= kRules[r].inputs;
    if (kRules[r].scope == RuleScope::island) in.fields |= FieldSet{F::cluster_islands};  // the loop over entries
  }
  return in;
}

int stages_per_island(const Scenario& s) noexcept {
  if (!s.plan.pp_across_islands) return s.plan.pp;
  const int islands = s.cluster.total_islands();
  return islands > 0 ? s.plan.pp / islands : s.plan.pp;
}

int island_data_parallel(const Scenario& s, int i) noexcept {
  const IslandSpec& island = island_at(s, i);
  const std::int64_t per_replica = std::int64_t{s.plan.tp} * s.plan.cp * stages_per_island(s);
  return per_replica > 0 ? static_cast<int>(island.gpus / per_replica) : 0;
}

int total_data_parallel(const Scenario& s) noexcept {
  // One island entry and no pipeline across islands (nearly every scenario): the loop below with one term, straight
  // line, so the flattened checker can share it between the rules that ask for it.
  if (s.cluster.island_entries == 1 && !s.plan.pp_across_islands)
    return island_data_parallel(s, 0) * s.cluster.islands[0].count;
  int dp = 0;
  for (int i = 0; i < s.cluster.island_entries; ++i) dp += island_data_parallel(s, i) * island_at(s, i).count;
  // With the pipeline spanning islands, one replica takes a slice of every island.
  if (s.plan.pp_across_islands && s.cluster.total_islands() > 0) dp /= s.cluster.total_islands();
  return dp;
}

std::string_view describe(RejectReason r) noexcept {
  switch (r) {
    case RejectReason::none: return "is consistent";
    case RejectReason::parallel_degrees_do_not_divide_gpus: return "does not divide";
    case RejectReason::heads_not_divisible_by_tp: return "does not divide";
    case RejectReason::kv_heads_not_divisible_by_tp: return "does not divide";
    case RejectReason::ffn_not_divisible_by_tp: return "does not divide";
    case RejectReason::layers_not_divisible_by_pipeline: return "(times plan.pp) exceeds the effective layers of";
    case RejectReason::pipeline_split_invalid: return "cannot split the layers over the pipeline stages with";
    case RejectReason::seq_not_divisible_by_cp: return "(times 2, for causal load balance) does not divide";
    case RejectReason::global_batch_not_divisible: return "is not a positive multiple of micro_batch x data-parallel degree";
    case RejectReason::interleave_needs_pipeline: return "needs a pipeline whose micro-batch count it divides:";
    case RejectReason::shard_group_invalid: return "is not a whole number of TP x CP groups dividing the data-parallel GPUs of";
    case RejectReason::island_not_whole_nodes: return "does not divide";
    case RejectReason::pipeline_exceeds_islands: return "is not a multiple of the number of islands";
    case RejectReason::heterogeneous_plan_invalid: return "cannot be combined with";
    case RejectReason::diloco_needs_islands: return "= diloco needs at least two islands, but";
    case RejectReason::wan_link_missing: return "needs a cluster.wan link (or cluster.links entry) between islands";
    case RejectReason::experts_not_divisible_by_ep: return "does not divide";
    case RejectReason::expert_folding_does_not_divide_gpus: return "(times plan.etp) does not divide the GPUs per pipeline stage of";
    case RejectReason::fp8_not_supported: return "is not supported with";
    case RejectReason::offload_not_supported: return "is not supported with";
    case RejectReason::out_of_memory: return "does not fit in GPU memory";
    case RejectReason::goodput_below_floor: return "loses more wall time to failures and restarts than it trains";
    case RejectReason::count_: break;
  }
  return "is invalid";
}

}  // namespace shardmeter::model
