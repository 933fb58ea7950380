#include "src/scenario/scenario_schema.hpp"

#include <array>

#include <fmt/format.h>

namespace shardmeter::cli {

namespace {

// clang-format off
constexpr std::array kTop = {
  KeySpec{"name", "name", "", "required", "Scenario identifier, used in reports and result files"},
  KeySpec{"description", "text", "", "\"\"", "Free text"},
  KeySpec{"model", "map", "", "required", "The transformer (see model:)"},
  KeySpec{"training", "map", "", "required", "Batch sizes, token budget, numerics (see training:)"},
  KeySpec{"cluster", "map", "", "required", "Islands of GPUs and the links between them (see cluster:)"},
  KeySpec{"plan", "map", "", "all defaults", "Parallel layout (see plan:)"},
  KeySpec{"runtime", "map", "", "all defaults", "Memory the runtime reserves (see runtime:)"},
  KeySpec{"goodput", "map", "", "all defaults", "Failures, checkpoints, restarts (see goodput:)"},
  KeySpec{"search", "map", "", "none", "Search space, constraints and objectives (see search:); used by `shardmeter search`, checked but unused by `estimate`"},
};

constexpr std::array kModel = {
  KeySpec{"preset", "name", "", "none", "A model in scenarios/models/; supplies every other model key, explicit keys override it"},
  KeySpec{"layers", "int", "", "required (or preset)", "Transformer blocks L"},
  KeySpec{"hidden", "int", "", "required (or preset)", "Hidden size h"},
  KeySpec{"heads", "int", "", "required (or preset)", "Attention (query) heads a"},
  KeySpec{"kv_heads", "int", "", "= heads", "Key/value heads g; fewer than heads = grouped-query attention"},
  KeySpec{"head_dim", "int", "", "hidden / heads", "Dimension of one head"},
  KeySpec{"ffn_hidden", "int", "", "4·hidden (gelu); 8·hidden/3 rounded up to a multiple of 256 (swiglu)", "MLP inner width f"},
  KeySpec{"ffn_type", "gelu | swiglu", "", "gelu", "MLP kind (swiglu has three matrices)"},
  KeySpec{"vocab", "int", "tokens", "required (or preset)", "Vocabulary size V (as padded for training)"},
  KeySpec{"seq_len", "int", "tokens", "required (or preset)", "Tokens per sequence s"},
  KeySpec{"norm", "layernorm | rmsnorm", "", "layernorm", "Normalisation layers"},
  KeySpec{"position_embedding", "learned | rope | alibi", "", "learned", "learned adds seq_len·hidden parameters"},
  KeySpec{"bias", "bool", "", "true", "Linear layers carry biases (GPT-3 style)"},
  KeySpec{"tied_embeddings", "bool", "", "true", "Output head shares the input embedding"},
  KeySpec{"dropout", "bool", "", "true", "Dropout layers present (their masks take activation memory)"},
};

constexpr std::array kTraining = {
  KeySpec{"global_batch", "int", "sequences", "required", "Sequences per optimizer step, all replicas"},
  KeySpec{"micro_batch", "int", "sequences", "1", "Sequences per micro-step per model replica"},
  KeySpec{"tokens", "number", "tokens", "0", "Training budget (e.g. 300e9), for wall-clock and total cost"},
  KeySpec{"precision", "bf16 | fp16 | fp8", "", "bf16", "Compute precision of the GEMMs"},
  KeySpec{"optimizer", "adamw | adamw_8bit | sgd_momentum | lion", "", "adamw", "Optimizer (sets optimizer-state bytes)"},
  KeySpec{"grad_reduce_dtype", "bf16 | fp16 | fp32", "", "bf16", "Gradient all-reduce element type (2, 2 or 4 bytes)"},
};

constexpr std::array kCluster = {
  KeySpec{"islands", "list", "", "required", "1 to 8 island entries (see cluster.islands[N])"},
  KeySpec{"wan", "map", "", "none", "Default link between every pair of islands (see cluster.wan)"},
  KeySpec{"links", "list", "", "none", "Up to 16 per-pair overrides of cluster.wan (see cluster.links[N])"},
};

constexpr std::array kIsland = {
  KeySpec{"name", "name", "", "island<N>", "Island name (at most 31 characters), used by cluster.links"},
  KeySpec{"gpu", "name or map", "", "required", "A name in scenarios/gpus.yaml, or an inline map of GPU fields"},
  KeySpec{"gpus", "int", "GPUs", "required unless nodes", "GPUs in one island of this entry"},
  KeySpec{"nodes", "int", "nodes", "none", "Alternative to gpus: gpus = nodes × gpus_per_node (give exactly one)"},
  KeySpec{"count", "int", "islands", "1", "Identical islands this entry describes"},
  KeySpec{"spot", "bool", "", "false", "Billed at spot_price_usd_per_gpu_hour, exposed to preemption"},
  KeySpec{"preemptions_per_gpu_hour", "number", "1/GPU-hour", "0", "Spot preemption rate"},
};

constexpr std::array kGpuFields = {
  KeySpec{"bf16_tflops", "number", "TFLOP/s", "catalog", "Dense bf16/fp16 tensor-core peak per GPU"},
  KeySpec{"fp8_tflops", "number", "TFLOP/s", "catalog (0 = no fp8)", "Dense fp8 peak per GPU"},
  KeySpec{"hbm_gib", "number", "GiB (2^30 bytes)", "catalog", "Device memory per GPU, as marketed (an \"80 GB\" HBM part holds 80 GiB)"},
  KeySpec{"hbm_tbps", "number", "TB/s", "catalog", "Device memory bandwidth"},
  KeySpec{"scaleup_gbps", "number", "GB/s per GPU, unidirectional", "catalog", "Scale-up (NVLink / xGMI / PCIe) bandwidth"},
  KeySpec{"scaleup_link", "name", "", "catalog", "Scale-up link type in scenarios/links.yaml"},
  KeySpec{"scaleup_domain_gpus", "int", "GPUs", "catalog (8; 72 for gb200)", "GPUs sharing the scale-up fabric"},
  KeySpec{"gpus_per_node", "int", "GPUs", "catalog (8; 4 for gb200)", "GPUs per node (sharing its NICs)"},
  KeySpec{"node_network_gbps", "number", "Gbit/s per node", "catalog", "Scale-out injection bandwidth of a whole node"},
  KeySpec{"scaleout_link", "name", "", "catalog", "Scale-out link type in scenarios/links.yaml"},
  KeySpec{"price_usd_per_gpu_hour", "number", "USD per GPU-hour", "catalog", "On-demand price"},
  KeySpec{"spot_price_usd_per_gpu_hour", "number", "USD per GPU-hour", "catalog (0 = unknown)", "Spot price"},
  KeySpec{"efficiency", "map", "", "catalog", "Calibrated efficiency constants (see ...efficiency)"},
};

constexpr std::array kGpuCatalog = {
  KeySpec{"price_high_usd_per_gpu_hour", "number", "USD per GPU-hour", "0", "Hyperscaler list price (reports only)"},
  KeySpec{"family", "string", "", "the entry's name", "GPU types sharing a die share calibrated efficiency constants"},
  KeySpec{"sources", "map", "", "{}", "Field -> citation of the number"},
};

constexpr std::array kEfficiency = {
  KeySpec{"gemm", "number", "fraction of peak", "catalog", "Large training GEMMs"},
  KeySpec{"gemm_half_dim", "number", "elements", "64", "GEMM dimension at which tile efficiency halves"},
  KeySpec{"attention", "number", "fraction of peak", "catalog", "Fused (flash) attention kernels"},
  KeySpec{"hbm", "number", "fraction", "0.85", "Memory-bound kernels, of HBM bandwidth"},
  KeySpec{"kernel_overhead_us", "number", "µs", "4", "Launch + sync cost per kernel"},
  KeySpec{"overlap_slowdown", "number", "fraction", "0.3", "Compute lost per second of communication hidden under it"},
};

constexpr std::array kWan = {
  KeySpec{"bandwidth_gbps", "number", "Gbit/s", "required", "Island-to-island bandwidth (the island gateway's aggregate)"},
  KeySpec{"latency_ms", "number", "ms, one-way", "0", "One-way latency (RTT / 2)"},
  KeySpec{"egress_usd_per_gb", "number", "USD per GB", "0", "Egress price of bytes leaving an island"},
  KeySpec{"efficiency", "number", "fraction", "0.7", "Achievable fraction with many TCP streams"},
};

constexpr std::array kLinkOverride = {
  KeySpec{"from", "name or int", "", "required", "Island entry (name or index)"},
  KeySpec{"to", "name or int", "", "required", "Island entry (name or index)"},
  KeySpec{"bandwidth_gbps", "number", "Gbit/s", "cluster.wan's, else required", "As in cluster.wan"},
  KeySpec{"latency_ms", "number", "ms, one-way", "cluster.wan's, else 0", "As in cluster.wan"},
  KeySpec{"egress_usd_per_gb", "number", "USD per GB", "cluster.wan's, else 0", "As in cluster.wan"},
  KeySpec{"efficiency", "number", "fraction", "cluster.wan's, else 0.7", "As in cluster.wan"},
};

constexpr std::array kPlan = {
  KeySpec{"tp", "int", "GPUs", "1", "Tensor-parallel degree"},
  KeySpec{"pp", "int", "stages", "1", "Pipeline-parallel degree"},
  KeySpec{"cp", "int", "GPUs", "1", "Context-parallel degree"},
  KeySpec{"interleave", "int", "", "1", "Virtual pipeline stages per device"},
  KeySpec{"sequence_parallel", "bool", "", "false", "Megatron sequence parallelism over the TP group"},
  KeySpec{"sharding", "none | zero1 | zero2 | fsdp | hsdp", "", "none", "Data-parallel sharding (none = plain DDP)"},
  KeySpec{"shard_group", "int", "GPUs", "0 (= one node)", "hsdp: GPUs per shard group"},
  KeySpec{"recompute", "none | selective | full", "", "selective", "Activation recomputation"},
  KeySpec{"attention", "flash | standard", "", "flash", "Attention kernel"},
  KeySpec{"overlap_grad_reduce", "bool", "", "true", "Overlap DP gradient reduction with backward"},
  KeySpec{"overlap_param_gather", "bool", "", "true", "Overlap ZeRO parameter all-gather with forward"},
  KeySpec{"tp_comm_overlap", "bool", "", "false", "Overlap TP collectives with GEMMs"},
  KeySpec{"sync", "synchronous | diloco", "", "synchronous", "Synchronisation across islands"},
  KeySpec{"pp_across_islands", "bool", "", "false", "Pipeline stages span islands"},
  KeySpec{"batch_split", "balanced | equal", "", "balanced", "How heterogeneous islands split the global batch"},
  KeySpec{"diloco", "map", "", "all defaults", "DiLoCo settings (see plan.diloco)"},
};

constexpr std::array kDiloco = {
  KeySpec{"inner_steps", "int", "steps", "100", "H: inner steps between outer synchronisations"},
  KeySpec{"outer_bits", "32 | 16 | 8 | 4", "bits", "32", "Precision of the pseudo-gradient all-reduce"},
  KeySpec{"fragments", "int", "", "1", "Streaming DiLoCo fragments P"},
  KeySpec{"overlap_steps", "int", "steps", "0", "tau: inner steps the outer sync may hide behind"},
  KeySpec{"fast_islands", "wait | more_steps", "", "wait", "What faster islands do while slower ones finish"},
  KeySpec{"offload_outer_state", "bool", "", "false", "Keep outer parameters and momentum in host memory"},
  KeySpec{"token_efficiency", "number", "", "published fit", "Loss-equivalent tokens per trained token; overrides the default interpolated from Charles et al. 2025 (H = 30)"},
  KeySpec{"efficiency_loss_per_h_doubling", "number", "", "0", "Token efficiency lost per doubling of H beyond 30 (none is published)"},
};

constexpr std::array kRuntime = {
  KeySpec{"fragmentation_fraction", "number", "fraction of HBM", "0.07", "Allocator fragmentation reserve (0 to 0.5)"},
  KeySpec{"runtime_overhead_gb", "number", "GB", "1.0", "CUDA context + NCCL buffers per GPU"},
};

constexpr std::array kGoodput = {
  KeySpec{"enabled", "bool", "", "true", "Account for failures, checkpoints and restarts"},
  KeySpec{"failures_per_gpu_hour", "number", "1/GPU-hour", "0 (= published default)", "Failure rate per GPU"},
  KeySpec{"failures_per_node_day", "number", "1/node-day", "none", "Alternative to failures_per_gpu_hour; divided by 24 × the first island's gpus_per_node"},
  KeySpec{"checkpoint_write_s", "number", "s", "60", "Time to write one checkpoint"},
  KeySpec{"restart_s", "number", "s", "600", "Time to restart after a failure"},
};

constexpr std::array kSearch = {
  KeySpec{"axes", "map", "", "required by `shardmeter search`", "Dotted scenario key -> the values to try (see search.axes); one axis per key, in the order written"},
  KeySpec{"constraints", "map", "", "none", "Limits every candidate must respect besides memory fit (see search.constraints)"},
  KeySpec{"objectives", "list", "", "[total_cost_usd, tokens_per_s]", "1 to 4 metrics of the result files; each a name (its natural direction) or a map (see search.objectives[N])"},
};

constexpr std::array kSearchAxes = {
  KeySpec{"<dotted key>", "list or range", "the key's", "", "Any key --set accepts (plan.tp, cluster.islands.0.gpu, training.micro_batch, plan.diloco.inner_steps, ...): a YAML list, or a range A:B:xK (geometric), A:B:+K (arithmetic), A:B (step 1)"},
};

constexpr std::array kSearchConstraints = {
  KeySpec{"max_total_cost_usd", "number", "USD", "none", "Budget for the whole token budget"},
  KeySpec{"max_wall_clock_days", "number", "days", "none", "Deadline for the whole token budget, goodput losses included"},
  KeySpec{"min_tokens_per_s", "number", "tokens/s", "none", "Throughput floor"},
  KeySpec{"max_<metric>", "number", "the metric's", "none", "Upper bound on any metric column of the result files (results/README.md), e.g. max_memory_per_gpu_gb"},
  KeySpec{"min_<metric>", "number", "the metric's", "none", "Lower bound on any metric column, e.g. min_mfu: 0.35"},
  KeySpec{"gpu_quota", "map", "GPUs", "none", "GPU type -> most GPUs of that type over all islands, e.g. {h100-sxm: 512}"},
};

constexpr std::array kSearchObjective = {
  KeySpec{"metric", "name", "", "required", "A metric column (total_cost_usd, tokens_per_s, wall_clock_days, mfu, cost_usd_per_million_tokens, ...)"},
  KeySpec{"sense", "min | max", "", "the metric's natural direction", "Minimise or maximise it (cost, time and memory are minimised; throughput, MFU and goodput maximised)"},
};

constexpr std::array kLinkCatalog = {
  KeySpec{"efficiency", "number", "fraction", "required", "Achievable fraction of nominal bandwidth for large collectives"},
  KeySpec{"latency_us", "number", "µs", "required", "Per-hop latency (alpha)"},
  KeySpec{"source", "text", "", "required", "Where the numbers come from"},
};

constexpr std::array kPresetFile = {
  KeySpec{"name", "name", "", "required", "Preset name (= file name without .yaml)"},
  KeySpec{"source", "text", "", "required", "Citation for the dimensions"},
  KeySpec{"published_params_b", "number", "billions", "required", "Published parameter count (checked by the tests)"},
  KeySpec{"model", "map", "", "required", "Model keys (as in model:, without preset)"},
};
// clang-format on

struct SectionInfo {
  Section section;
  std::string_view where;  // the YAML path of the section, shown as code
  std::string_view note;
  std::span<const KeySpec> keys;
};

const std::array kSections = {
    SectionInfo{Section::top, "", "Top level of a scenario file", kTop},
    SectionInfo{Section::model, "model:", "", kModel},
    SectionInfo{Section::training, "training:", "", kTraining},
    SectionInfo{Section::cluster, "cluster:", "", kCluster},
    SectionInfo{Section::island, "cluster.islands[N]:", "plus any GPU field below, overriding the catalog's value",
                kIsland},
    SectionInfo{Section::gpu_fields, "gpus.NAME:",
                "GPU fields: entries of scenarios/gpus.yaml, inline `gpu:` maps, and island overrides", kGpuFields},
    SectionInfo{Section::gpu_catalog, "gpus.NAME:",
                "catalog-only GPU fields (also allowed in an inline `gpu:` map, with `name`)", kGpuCatalog},
    SectionInfo{Section::efficiency, "efficiency:", "inside a GPU entry, an inline `gpu:` map or an island", kEfficiency},
    SectionInfo{Section::wan, "cluster.wan:", "", kWan},
    SectionInfo{Section::link_override, "cluster.links[N]:", "", kLinkOverride},
    SectionInfo{Section::plan, "plan:", "", kPlan},
    SectionInfo{Section::diloco, "plan.diloco:", "", kDiloco},
    SectionInfo{Section::runtime, "runtime:", "", kRuntime},
    SectionInfo{Section::goodput, "goodput:", "", kGoodput},
    SectionInfo{Section::search, "search:", "read by `shardmeter search` (docs/search.md)", kSearch},
    SectionInfo{Section::search_axes, "search.axes:", "", kSearchAxes},
    SectionInfo{Section::search_constraints, "search.constraints:", "", kSearchConstraints},
    SectionInfo{Section::search_objective, "search.objectives[N]:", "a metric name, or this map", kSearchObjective},
    SectionInfo{Section::link_catalog, "links.NAME:", "entries of scenarios/links.yaml", kLinkCatalog},
    SectionInfo{Section::preset_file, "", "A model preset file, scenarios/models/NAME.yaml", kPresetFile},
};

// A '|' inside a Markdown table cell must be escaped.
std::string escape_pipes(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::span<const KeySpec> section_keys(Section section) {
  for (const SectionInfo& s : kSections)
    if (s.section == section) return s.keys;
  return {};
}

std::vector<std::string_view> key_names(std::initializer_list<Section> sections) {
  std::vector<std::string_view> names;
  for (Section section : sections)
    for (const KeySpec& k : section_keys(section)) names.push_back(k.name);
  return names;
}

std::string schema_markdown() {
  std::string out;
  for (const SectionInfo& s : kSections) {
    std::string heading = s.where.empty() ? "" : fmt::format("`{}`", s.where);
    if (!s.note.empty()) heading += (heading.empty() ? "" : " — ") + std::string(s.note);
    out += fmt::format("**{}**\n\n| key | type | unit | default | meaning |\n|---|---|---|---|---|\n", heading);
    for (const KeySpec& k : s.keys)
      out += fmt::format("| `{}` | {} | {} | {} | {} |\n", k.name, escape_pipes(k.type), k.unit, escape_pipes(k.default_text),
                         escape_pipes(k.description));
    out += "\n";
  }
  return out;
}

}  // namespace shardmeter::cli
