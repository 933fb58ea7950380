// The shipped key table: one row per key, in the order docs/scenarios.md lists them (and unknown-key errors suggest them).
// A row names the key, its type (empty: the member's), unit, default, bounds, meaning and the member it fills;
// rows without a member are read by their section's parser (src/scenario/parse_*.cpp, catalog.cpp, gpu_fields.cpp,
// src/planning/search_section.cpp). model/*_spec.hpp keeps its default member initialisers for code that builds
// scenarios directly; a test checks that every `value` default below equals them.
#include "src/scenario/scenario_keys.hpp"

#include "model/spec/scenario.hpp"
#include "model/spec/units.hpp"
#include "src/scenario/catalog_entries.hpp"
#include "src/scenario/key_access.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

using D = KeyDefault;
using R = Range;

// ---- unit conversions of the keys below (model/spec/units.hpp for the rest) ------------------------------------------
constexpr double gib_to_bytes(double gib) { return gib * m::kGiB; }  // HBM capacities are binary: "80 GB" = 80 GiB
constexpr double gb_to_bytes(double gb) { return gb * m::kGB; }
constexpr double usd_per_gb_to_usd_per_byte(double usd_per_gb) { return usd_per_gb / m::kGB; }
constexpr double giga_to_one(double giga) { return giga * 1e9; }  // host_adam_gparams_per_s

// ---- derived defaults --------------------------------------------------------------------------------------------
template <class T, void (*F)(T&)>
void erased(void* object) {
  F(*static_cast<T*>(object));
}
void kv_heads_from_heads(m::ModelSpec& s) { s.kv_heads = s.heads; }
void head_dim_from_hidden(m::ModelSpec& s) { s.head_dim = s.hidden / s.heads; }  // parse_model checks divisibility
// SwiGLU MLPs keep the parameter count of a 4h GELU MLP with 2/3 of the width, rounded up to a multiple of
// 256 (LLaMA, Touvron et al. 2023, §2.2; Llama-2-7B: 8*4096/3 -> 11008).
void ffn_hidden_from_hidden(m::ModelSpec& s) {
  if (s.ffn_type == m::FfnType::gelu) {
    s.ffn_hidden = 4 * s.hidden;
    return;
  }
  const std::int64_t unit = 3 * 256;
  s.ffn_hidden = static_cast<int>((8LL * s.hidden + unit - 1) / unit * 256);
}
void expert_ffn_from_ffn(m::ModelSpec& s) { s.moe.expert_ffn_hidden = s.ffn_hidden; }
void shared_ffn_from_expert_ffn(m::ModelSpec& s) { s.moe.shared_expert_ffn_hidden = s.moe.expert_ffn_hidden; }
// The stack a plan implies when plan.stack is left out (docs/scenarios.md, "The software stack"): FSDP and HSDP
// sharding is PyTorch FSDP (FSDP2, torchtitan); anything else is Megatron-Core with Transformer Engine, whose
// distributed optimizer is ZeRO-1. estimate and search print the stack so chosen.
void stack_from_sharding(m::PlanSpec& s) {
  s.stack = s.sharding == m::Sharding::fsdp || s.sharding == m::Sharding::hsdp ? m::Stack::torch_fsdp2
                                                                               : m::Stack::megatron_te;
}
void v_head_dim_from_head_dim(m::ModelSpec& s) { s.mla.v_head_dim = s.head_dim; }

constexpr double kMaxDim = 10'000'000;
constexpr double kMaxDegree = 1 << 20;
const R kDim = R::between(1, kMaxDim);
// Every number is bounded at both ends: beyond these a unit conversion or a product of the model overflows a
// double (hbm_gib: 1e308 became inf bytes) or a time exceeds anything a plan is compared on (issue 14).
constexpr double kMinRate = 1e-3;  // TFLOP/s, TB/s, GB/s, Gbit/s: below a thousandth nothing is modelled
constexpr double kMaxTflops = 1e6;
const R kTflops = R::between(kMinRate, kMaxTflops);
const R kWanGbps = R::between(kMinRate, 1e7);
const R kPrice = R::between(0, 1e6);                        // USD per GPU-hour
const R kPositivePrice = R{0, 1e6, true};
const R kDurationS = R::between(0, 1e7);                    // about 4 months
const R kDegree = R::between(1, kMaxDegree);

const D kRequired = D::required("required", "is required");
const D kRequiredOrPreset = D::required("required (or preset)", "is required (give it, or a model.preset that sets it)");
const D kCatalog = D::described("catalog");

// clang-format off
std::vector<SectionKeys> shipped_sections() {
  using E = GpuEntry;
  using G = m::GpuSpec;
  return {
  {Section::top, "", "Top level of a scenario file", {
    {"name", "name", "", D::required("required", "is required (a short identifier for the scenario)"), {}, "Scenario identifier, used in reports and result files"},
    {"description", "text", "", D::described("\"\""), {}, "Free text"},
    {"model", "map", "", kRequired, {}, "The transformer (see model:)"},
    {"training", "map", "", kRequired, {}, "Batch sizes, token budget, numerics (see training:)"},
    {"cluster", "map", "", kRequired, {}, "Islands of GPUs and the links between them (see cluster:)"},
    {"plan", "map", "", D::described("all defaults"), {}, "Parallel layout (see plan:)"},
    {"runtime", "map", "", D::described("all defaults"), {}, "Memory the runtime reserves (see runtime:)"},
    {"goodput", "map", "", D::described("all defaults"), {}, "Failures, checkpoints, restarts (see goodput:)"},
    {"search", "map", "", D::described("none"), {}, "Search space, constraints and objectives (see search:); used by `shardmeter search`, checked but unused by `estimate`"},
  }},
  {Section::model, "model:", "", {
    {"preset", "name", "", D::described("none"), {}, "A model in scenarios/models/; supplies every other model key, explicit keys override it"},
    {"hf_config", "path", "", D::described("none"), {}, "A Hugging Face config.json (path relative to the scenario file) supplying the model keys it maps, not seq_len (docs/import.md); not with preset; explicit keys override it"},
    {"layers", "", "", kRequiredOrPreset, kDim, "Transformer blocks L", member<&m::ModelSpec::layers>},
    {"hidden", "", "", kRequiredOrPreset, kDim, "Hidden size h", member<&m::ModelSpec::hidden>},
    {"heads", "", "", kRequiredOrPreset, kDim, "Attention (query) heads a", member<&m::ModelSpec::heads>},
    {"kv_heads", "", "", D::derived("= heads", &erased<m::ModelSpec, &kv_heads_from_heads>), kDim, "Key/value heads g; fewer than heads = grouped-query attention", member<&m::ModelSpec::kv_heads>},
    {"head_dim", "", "", D::derived("hidden / heads", &erased<m::ModelSpec, &head_dim_from_hidden>), kDim, "Dimension of one head", member<&m::ModelSpec::head_dim>},
    {"ffn_hidden", "", "", D::derived("4·hidden (gelu); 8·hidden/3 rounded up to a multiple of 256 (swiglu)", &erased<m::ModelSpec, &ffn_hidden_from_hidden>), kDim, "MLP inner width f", member<&m::ModelSpec::ffn_hidden>},
    {"ffn_type", "", "", D::value("gelu"), {}, "MLP kind (swiglu has three matrices)", member<&m::ModelSpec::ffn_type>},
    {"vocab", "", "tokens", kRequiredOrPreset, R::between(1, 100'000'000), "Vocabulary size V (as padded for training)", member<&m::ModelSpec::vocab>},
    {"seq_len", "", "tokens", kRequiredOrPreset, R::between(1, 100'000'000), "Tokens per sequence s", member<&m::ModelSpec::seq_len>},
    {"norm", "", "", D::value("layernorm"), {}, "Normalisation layers", member<&m::ModelSpec::norm>},
    {"position_embedding", "", "", D::value("learned"), {}, "learned adds seq_len·hidden parameters", member<&m::ModelSpec::position_embedding>},
    {"yarn_factor", "", "", D::value("0", "{} (= plain RoPE)"), R::between(0, 1024), "YaRN rotary scaling factor (gpt-oss: 32); on the Megatron stacks its RoPE runs unfused", member<&m::ModelSpec::yarn_factor>},
    {"attention_window", "", "tokens", D::value("0", "{} (= full causal attention)"), R::between(0, 100'000'000), "Sliding-window attention: keys each query attends to, itself included (gpt-oss: 128); flash attention skips the tiles outside it (docs/model.md §2.8)", member<&m::ModelSpec::attention_window>},
    {"full_attention_every", "", "blocks", D::value("0", "{} (= every block windowed)"), R::between(0, 1'000'000), "With attention_window: every N-th block (counted from 1) attends fully, the others within the window (gpt-oss: 2; Megatron --window-attn-skip-freq)", member<&m::ModelSpec::full_attention_every>},
    {"bias", "", "", D::value("true"), {}, "Linear layers carry biases (GPT-3 style)", member<&m::ModelSpec::bias>},
    {"tied_embeddings", "", "", D::value("true"), {}, "Output head shares the input embedding", member<&m::ModelSpec::tied_embeddings>},
    {"dropout", "", "", D::value("true"), {}, "Dropout layers present (their masks take activation memory)", member<&m::ModelSpec::dropout>},
    // Mixture of experts and multi-head latent attention (docs/moe.md, docs/model.md §15).
    {"experts", "", "experts", D::value("0"), R::between(0, 1e6), "Routed experts E per MoE block (0 = dense model)", member<&m::ModelSpec::moe, &m::MoeSpec::experts>},
    {"top_k", "", "experts", D::value("2"), R::between(1, 1e6), "Routed experts each token is sent to", member<&m::ModelSpec::moe, &m::MoeSpec::top_k>},
    {"shared_experts", "", "experts", D::value("0"), R::between(0, 1e6), "Experts every token goes through (DeepSeek: 1)", member<&m::ModelSpec::moe, &m::MoeSpec::shared_experts>},
    {"expert_ffn_hidden", "", "", D::derived("= ffn_hidden", &erased<m::ModelSpec, &expert_ffn_from_ffn>), kDim, "Inner width of one routed expert", member<&m::ModelSpec::moe, &m::MoeSpec::expert_ffn_hidden>},
    {"shared_expert_ffn_hidden", "", "", D::derived("= expert_ffn_hidden", &erased<m::ModelSpec, &shared_ffn_from_expert_ffn>), kDim, "Inner width of one shared expert", member<&m::ModelSpec::moe, &m::MoeSpec::shared_expert_ffn_hidden>},
    {"dense_layers", "", "blocks", D::value("0"), R::between(0, kMaxDim), "The first blocks keep a dense MLP (DeepSeek-V3: 3)", member<&m::ModelSpec::moe, &m::MoeSpec::dense_layers>},
    {"moe_every", "", "blocks", D::value("1"), R::between(1, kMaxDim), "After them every n-th block is an MoE block", member<&m::ModelSpec::moe, &m::MoeSpec::moe_every>},
    {"router", "", "", D::value("softmax"), {}, "Router scoring (sigmoid adds one bias per expert)", member<&m::ModelSpec::moe, &m::MoeSpec::router>},
    {"capacity_factor", "", "× fair share", D::value("0", "{} (= dropless)"), R::between(0, 1024), "Tokens an expert accepts; beyond it tokens are dropped", member<&m::ModelSpec::moe, &m::MoeSpec::capacity_factor>},
    {"load_imbalance", "", "busiest / mean", D::value("1"), R::between(1, 100), "Routed tokens of the busiest expert-parallel rank over the mean", member<&m::ModelSpec::moe, &m::MoeSpec::load_imbalance>},
    {"expert_activation_clamp", "", "", D::value("0", "{} (= none)"), R::between(0, 1e6), "The experts' gated activation clamps its inputs to this limit (gpt-oss: 7)", member<&m::ModelSpec::moe, &m::MoeSpec::activation_clamp>},
    {"mtp_layers", "", "blocks", D::value("0"), R::between(0, 64), "Multi-token-prediction depth (DeepSeek-V3: 1)", member<&m::ModelSpec::mtp_layers>},
    {"q_lora_rank", "", "", D::value("0"), R::between(0, kMaxDim), "MLA query compression rank (0 = none)", member<&m::ModelSpec::mla, &m::MlaSpec::q_lora_rank>},
    {"kv_lora_rank", "", "", D::value("0"), R::between(0, kMaxDim), "MLA key/value latent rank; > 0 selects multi-head latent attention", member<&m::ModelSpec::mla, &m::MlaSpec::kv_lora_rank>},
    {"rope_head_dim", "", "", D::value("0"), R::between(0, kMaxDim), "MLA decoupled rotary dimension per head", member<&m::ModelSpec::mla, &m::MlaSpec::rope_head_dim>},
    {"v_head_dim", "", "", D::derived("= head_dim", &erased<m::ModelSpec, &v_head_dim_from_head_dim>), kDim, "MLA value dimension per head", member<&m::ModelSpec::mla, &m::MlaSpec::v_head_dim>},
    // Numerics the exports write and the imports read; they change no cost (docs/export.md "Model flags").
    {"rope_theta", "", "", D::value("10000"), R::between(1, 1e12), "RoPE base θ (Hugging Face rope_theta, Megatron --rotary-base, torchtitan rope_theta); used with position_embedding rope, costs nothing", member<&m::ModelSpec::rope_theta>},
    {"norm_eps", "", "", D::value("1e-5"), R::between(1e-12, 0.1), "Epsilon of the norm layers (Hugging Face rms_norm_eps / layer_norm_eps, Megatron --norm-epsilon, torchtitan norm_eps); costs nothing", member<&m::ModelSpec::norm_eps>},
  }},
  {Section::training, "training:", "", {
    {"global_batch", "", "sequences", D::required("required", "is required (sequences per optimizer step)"), R::between(1, 1e9), "Sequences per optimizer step, all replicas", member<&m::TrainingSpec::global_batch>},
    {"micro_batch", "", "sequences", D::value("1"), R::between(1, 1e6), "Sequences per micro-step per model replica", member<&m::TrainingSpec::micro_batch>},
    {"tokens", "", "tokens", D::value("0"), R::between(0, 1e18), "Training budget (e.g. 300e9), for wall-clock and total cost", member<&m::TrainingSpec::tokens>},
    {"precision", "", "", D::value("bf16"), {}, "Compute precision of the GEMMs (fp8 needs fp8 tensor cores; docs/model.md §2.2)", member<&m::TrainingSpec::precision>},
    {"fp8_params", "", "", D::value("false"), {}, "precision: fp8: GEMM weights kept and all-gathered in fp8 (Megatron --fp8-param-gather, NeMo fp8_params, torchtitan enable_fsdp_float8_all_gather; docs/model.md §2.2)", member<&m::TrainingSpec::fp8_params>},
    {"fp8_recipe", "", "", D::value("auto"), {}, "precision: fp8: scaling of the casts, delayed (amax history) or current, or mxfp8 (E8M0 scale per 32 elements; compute capability 10.0+); auto = current for torch_fsdp2, else delayed (docs/model.md §2.2, §7.14)", member<&m::TrainingSpec::fp8_recipe>},
    {"optimizer", "", "", D::value("adamw"), {}, "Optimizer (sets optimizer-state bytes)", member<&m::TrainingSpec::optimizer>},
    {"grad_reduce_dtype", "", "", D::value("bf16"), {}, "Gradient all-reduce element type (2, 2 or 4 bytes); on the megatron stacks also the main gradients' in memory (docs/model.md §7.1)", mapped<&grad_reduce_bytes, &m::TrainingSpec::grad_reduce_bytes>},
    {"optimizer_state_dtype", "", "", D::value("fp32"), {}, "Element type of the optimizer's moment states (adamw m and v, the sgd_momentum / lion momentum); bf16 as Megatron's --exp-avg-dtype bf16 or NeMo's optim.dtype: bf16 (not with adamw_8bit; docs/model.md §7.2)", member<&m::TrainingSpec::optimizer_state_dtype>},
    {"master_weights", "", "", D::value("fp32"), {}, "fp32: an fp32 master copy of the weights in the optimizer state; none: the 16-bit weights are updated directly (docs/model.md §7.2)", member<&m::TrainingSpec::master_weights>},
    {"warmup_tokens", "", "tokens", D::value("0", "{} (= no warm-up)"), R::between(0, 1e18), "Linear learning-rate warm-up at the start of the run, in tokens; costs nothing: the exports write it as whole optimizer steps (Megatron --lr-warmup-iters, torchtitan warmup_steps; docs/export.md \"Training length\")", member<&m::TrainingSpec::warmup_tokens>},
  }},
  {Section::cluster, "cluster:", "", {
    {"islands", "list", "", D::required("required", "is required (a list of island entries)"), {}, "1 to 8 island entries (see cluster.islands[N])"},
    {"wan", "map", "", D::described("none"), {}, "Default link between every pair of islands (see cluster.wan)"},
    {"links", "list", "", D::described("none"), {}, "Up to 16 per-pair overrides of cluster.wan (see cluster.links[N])"},
  }},
  {Section::island, "cluster.islands[N]:", "plus any GPU field below, overriding the catalog's value", {
    {"name", "name", "", D::described("island<N>"), {}, "Island name (at most 31 characters), used by cluster.links"},
    {"gpu", "name or map", "", D::required("required", "is required: a name in gpus.yaml or an inline map of GPU fields"), {}, "A name in scenarios/gpus.yaml, or an inline map of GPU fields"},
    {"gpus", "", "GPUs", D::described("required unless nodes"), R::between(1, 1e8), "GPUs in one island of this entry", member<&m::IslandSpec::gpus>},
    {"nodes", "int", "nodes", D::described("none"), R::between(1, 1e8), "Alternative to gpus: gpus = nodes × gpus_per_node (give exactly one)"},
    {"count", "", "islands", D::value("1"), R::between(1, 1e5), "Identical islands this entry describes", member<&m::IslandSpec::count>},
    {"spot", "", "", D::value("false"), {}, "Billed at spot_price_usd_per_gpu_hour, exposed to preemption", member<&m::IslandSpec::spot>},
    {"preemptions_per_gpu_hour", "", "1/GPU-hour", D::value("0"), R::between(0, 1000), "Spot preemption rate", member<&m::IslandSpec::preemptions_per_gpu_hour>},
    {"price_model", "on_demand | spot | committed_1y | committed_3y", "", D::value("on_demand"), {}, "Which catalog price the island pays (spot: as spot: true; committed: the GPU's 1- or 3-year price)"},
    {"fabric_topology", "", "", D::value("rail_optimized"), {}, "Scale-out switch layout: rail_optimized (GPU i of every node on rail switch i, DGX SuperPOD) or top_of_rack (docs/model.md §3.5)", member<&m::IslandSpec::fabric_topology>},
    {"fabric_leaf_nodes", "", "nodes", D::value("0", "{} = by topology: 32 rail_optimized, 4 top_of_rack"), R::between(0, 1e6), "Nodes under one leaf switch; a collective over more crosses the spine (docs/model.md §3.5)", member<&m::IslandSpec::fabric_leaf_nodes>},
    {"fabric_oversubscription", "", "ratio", D::value("1"), R::between(1, 1000), "Leaf downlink : uplink bandwidth, charged to collectives that span leaves (docs/model.md §3.5)", member<&m::IslandSpec::fabric_oversubscription>},
    {"fabric_hop_latency_us", "", "µs", D::value("0"), R::between(0, 1e5), "Latency of one switch hop, per network step: 1 hop inside a leaf, 3 across the spine (docs/model.md §3.5)", converted<&m::us_to_s, &m::IslandSpec::fabric_hop_latency_s>},
    {"network_profile", "path", "", D::described("none"), {}, "Measured network: a profile written by `shardmeter calibrate-network` from nccl-tests logs, relative to the scenario file; the island's collectives then follow it (docs/network.md)"},
  }},
  {Section::gpu_fields, "gpus.NAME:", "GPU fields: entries of scenarios/gpus.yaml, inline `gpu:` maps, and island overrides", {
    {"bf16_tflops", "", "TFLOP/s", kCatalog, kTflops, "Dense bf16/fp16 tensor-core peak per GPU", converted<&m::tflops_to_flops_per_s, &E::gpu, &G::peak_flops_per_s>, kRequiredInCatalog | kRequiredInline | kCited},
    {"fp8_tflops", "", "TFLOP/s", D::value("0", "catalog ({} = no fp8)"), R::zero_or(kMinRate, kMaxTflops), "Dense fp8 peak per GPU", converted<&m::tflops_to_flops_per_s, &E::gpu, &G::peak_fp8_flops_per_s>, kCited},
    {"hbm_gib", "", "GiB (2^30 bytes)", kCatalog, R::between(kMinRate, 1e6), "Device memory per GPU, as marketed (an \"80 GB\" HBM part holds 80 GiB)", converted<&gib_to_bytes, &E::gpu, &G::hbm_bytes>, kRequiredInCatalog | kRequiredInline | kCited},
    {"hbm_tbps", "", "TB/s", kCatalog, R::between(kMinRate, 1e4), "Device memory bandwidth", converted<&m::tbyte_per_s_to_bytes_per_s, &E::gpu, &G::hbm_bytes_per_s>, kRequiredInCatalog | kRequiredInline | kCited},
    {"scaleup_gbps", "", "GB/s per GPU, unidirectional", kCatalog, R::between(kMinRate, 1e6), "Scale-up (NVLink / xGMI / PCIe) bandwidth", converted<&m::gbyte_per_s_to_bytes_per_s, &E::gpu, &G::scaleup, &m::LinkSpec::bytes_per_s>, kRequiredInCatalog | kRequiredInline | kCited},
    {"scaleup_link", "name", "", kCatalog, {}, "Scale-up link type in scenarios/links.yaml", nullptr, kRequiredInCatalog | kRequiredInline},
    {"scaleup_domain_gpus", "", "GPUs", D::value("8", "catalog ({}; 72 for gb200)"), R::between(1, 1 << 20), "GPUs sharing the scale-up fabric", member<&E::gpu, &G::scaleup_domain_gpus>, kRequiredInCatalog | kCited},
    {"gpus_per_node", "", "GPUs", D::value("8", "catalog ({}; 4 for gb200)"), R::between(1, 1024), "GPUs per node (sharing its NICs)", member<&E::gpus_per_node>, kRequiredInCatalog | kCited},
    {"node_network_gbps", "", "Gbit/s per node", D::value("0", "catalog"), R::zero_or(kMinRate, 1e7), "Scale-out injection bandwidth of a whole node", member<&E::node_network_gbps>, kRequiredInCatalog | kCited},
    {"scaleout_link", "name", "", kCatalog, {}, "Scale-out link type in scenarios/links.yaml", nullptr, kRequiredInCatalog},
    {"price_usd_per_gpu_hour", "", "USD per GPU-hour", D::value("0", "catalog"), kPrice, "On-demand price", member<&E::gpu, &G::price_usd_per_gpu_hour>, kRequiredInCatalog | kCited},
    {"spot_price_usd_per_gpu_hour", "", "USD per GPU-hour", D::value("0", "catalog ({} = unknown)"), kPrice, "Spot price", member<&E::gpu, &G::spot_price_usd_per_gpu_hour>, kCited},
    {"sm_count", "", "SMs", D::value("0", "catalog ({} = unknown)"), R::between(0, 4096), "Streaming multiprocessors (compute units): sets the share a collective's thread blocks take", member<&E::gpu, &G::sm_count>, kCited},
    {"compute_capability", "", "", D::value("0", "catalog ({} = unknown: treated as Hopper)"), R::between(0, 1000), "CUDA compute capability x 10 (90 Hopper, 100 Blackwell): whether TE keeps fp8 transposes and runs MXFP8 (docs/model.md §7.14)", member<&E::gpu, &G::compute_capability>, kCited},
    {"efficiency", "map", "", kCatalog, {}, "Calibrated efficiency constants (see ...efficiency)", nullptr, kRequiredInCatalog | kCited},
    {"host_link_gbps", "", "GB/s per GPU, per direction", D::value("0", "catalog ({} = unknown)"), R::zero_or(kMinRate, 1e6), "The GPU's link to host memory (PCIe or NVLink-C2C), which activation and optimizer offload copies cross (docs/model.md §7.15, §7.16)", converted<&m::gbyte_per_s_to_bytes_per_s, &E::gpu, &G::host_link_bytes_per_s>, kCited},
    {"host_link_efficiency", "", "fraction", D::value("0.8"), R::fraction(), "Fraction of host_link_gbps that pinned-memory copies reach (assumed; docs/model.md §7.15)", member<&E::gpu, &G::host_link_efficiency>, kCited},
    {"host_adam_gparams_per_s", "", "10^9 parameters/s per GPU", D::value("1"), R::between(1e-6, 1e6), "Parameters the host CPU updates per second with Adam for each GPU it serves, under optimizer offload (assumed; docs/model.md §7.16)", converted<&giga_to_one, &E::gpu, &G::host_adam_params_per_s>, kCited},
  }},
  {Section::gpu_catalog, "gpus.NAME:", "catalog-only GPU fields (also allowed in an inline `gpu:` map)", {
    {"price_high_usd_per_gpu_hour", "", "USD per GPU-hour", D::value("0"), kPrice, "Hyperscaler list price (reports only)", member<&E::price_high_usd_per_gpu_hour>, kCited},
    {"committed_1y_price_usd_per_gpu_hour", "", "USD per GPU-hour", D::value("0", "{} = unknown"), kPrice, "1-year committed price (an island's price_model: committed_1y)", member<&E::committed_1y_price_usd_per_gpu_hour>, kCited},
    {"committed_3y_price_usd_per_gpu_hour", "", "USD per GPU-hour", D::value("0", "{} = unknown"), kPrice, "3-year committed price (price_model: committed_3y)", member<&E::committed_3y_price_usd_per_gpu_hour>, kCited},
    {"family", "string", "", D::described("the entry's name"), {}, "GPU types sharing a die share calibrated efficiency constants", member<&E::family>},
    {"calibration", "fitted, family or uncalibrated", "", D::value("uncalibrated"), {}, "Whether the efficiency constants were fitted to published runs of this type (fitted), of another type of its family (family), or extrapolated (uncalibrated), on the stacks of calibration_stacks (every stack when it is left out); shown per plan.stack by estimate, search, report, export and list", member<&E::calibration>},
    {"calibration_stacks", "list of stack names", "", D::described("every stack"), {}, "The stacks (plan.stack) the calibration status holds for, each with its own efficiency.stacks set; on any other stack the type is uncalibrated (its base constants are extrapolated). Leave it out when the fit covers every stack", nullptr},
    {"sources", "map", "", D::described("{}"), {}, "Field -> citation of the number", nullptr, kRequiredInCatalog},
  }},
  {Section::inline_gpu, "cluster.islands[N].gpu:", "an inline map of GPU fields instead of a catalog name: the fields above, plus", {
    {"name", "name", "", D::value("custom"), {}, "GPU type name (at most 31 characters), shown in reports"},
  }},
  {Section::efficiency, "efficiency:", "inside a GPU entry, an inline `gpu:` map or an island", {
    {"gemm", "", "fraction of peak", D::value("0.7", "catalog"), R::fraction(), "Large training GEMMs", member<&E::gpu, &G::gemm_efficiency>},
    {"gemm_half_dim", "", "elements", D::value("64"), R::between(0, 1e6), "GEMM dimension at which tile efficiency halves", member<&E::gpu, &G::gemm_half_dim>},
    {"attention", "", "fraction of peak", D::value("0.5", "catalog"), R::fraction(), "Fused (flash) attention kernels", member<&E::gpu, &G::attention_efficiency>},
    {"hbm", "", "fraction", D::value("0.85"), R::fraction(), "Memory-bound kernels, of HBM bandwidth", member<&E::gpu, &G::hbm_efficiency>},
    {"kernel_overhead_us", "", "µs", D::value("4"), R::between(0, 1e6), "Launch + sync cost per kernel", converted<&m::us_to_s, &E::gpu, &G::kernel_overhead_s>},
    {"stacks", "map", "", D::described("none"), {}, "Per software stack (plan.stack): gemm, gemm_half_dim, attention, contention_scale calibrated for it, replacing the values above (docs/model.md §6.7)"},
    {"contention_scale", "", "", D::value("1"), R::between(0.5, 2), "Bounded factor on the SM/HBM contention of overlapped collectives (docs/model.md §6.6)", member<&E::gpu, &G::contention_scale>},
  }},
  {Section::wan, "cluster.wan:", "", {
    {"bandwidth_gbps", "", "Gbit/s", kRequired, kWanGbps, "Island-to-island bandwidth (the island gateway's aggregate)", converted<&m::gbit_per_s_to_bytes_per_s, &m::WanLink::bytes_per_s>},
    {"latency_ms", "", "ms, one-way", D::value("0"), R::between(0, 1e5), "One-way latency (RTT / 2)", converted<&m::ms_to_s, &m::WanLink::latency_s>},
    {"egress_usd_per_gb", "", "USD per GB", D::value("0"), R::between(0, 1000), "Egress price of bytes leaving an island", converted<&usd_per_gb_to_usd_per_byte, &m::WanLink::egress_usd_per_byte>},
    {"efficiency", "", "fraction", D::value("0.7"), R::fraction(), "Achievable fraction with many TCP streams", member<&m::WanLink::efficiency>},
    {"network_profile", "path", "", D::described("none"), {}, "Measured WAN link: a `shardmeter calibrate-network` profile of nccl-tests runs across sites (node count = islands), relative to the scenario file; the ring's all-reduce (and point-to-point, with sendrecv runs) then follows it (docs/model.md §8.7)"},
  }},
  {Section::link_override, "cluster.links[N]:", "", {
    {"from", "name or int", "", D::required("required", "is required (an island name or index)"), {}, "Island entry (name or index)"},
    {"to", "name or int", "", D::required("required", "is required (an island name or index)"), {}, "Island entry (name or index)"},
    {"bandwidth_gbps", "", "Gbit/s", D::inherited(Section::wan), kWanGbps, "As in cluster.wan", converted<&m::gbit_per_s_to_bytes_per_s, &m::WanLink::bytes_per_s>},
    {"latency_ms", "", "ms, one-way", D::inherited(Section::wan), R::between(0, 1e5), "As in cluster.wan", converted<&m::ms_to_s, &m::WanLink::latency_s>},
    {"egress_usd_per_gb", "", "USD per GB", D::inherited(Section::wan), R::between(0, 1000), "As in cluster.wan", converted<&usd_per_gb_to_usd_per_byte, &m::WanLink::egress_usd_per_byte>},
    {"efficiency", "", "fraction", D::inherited(Section::wan), R::fraction(), "As in cluster.wan", member<&m::WanLink::efficiency>},
    {"network_profile", "path", "", D::inherited(Section::wan), {}, "As in cluster.wan"},
  }},
  {Section::plan, "plan:", "", {
    {"tp", "", "GPUs", D::value("1"), kDegree, "Tensor-parallel degree", member<&m::PlanSpec::tp>},
    {"pp", "", "stages", D::value("1"), kDegree, "Pipeline-parallel degree", member<&m::PlanSpec::pp>},
    {"cp", "", "GPUs", D::value("1"), kDegree, "Context-parallel degree", member<&m::PlanSpec::cp>},
    {"interleave", "", "", D::value("1"), R::between(1, 1024), "Virtual pipeline stages per device", member<&m::PlanSpec::interleave>},
    {"pp_first_stage_layers", "", "layers", D::value("0", "{} (= from the split)"), R::between(0, 1e6), "Transformer layers on the first pipeline rank, the rest split evenly over the ranks not set (Megatron --decoder-first-pipeline-num-layers; docs/model.md §5.4)", member<&m::PlanSpec::pp_first_stage_layers>},
    {"pp_last_stage_layers", "", "layers", D::value("0", "{} (= from the split)"), R::between(0, 1e6), "Transformer layers on the last pipeline rank (Megatron --decoder-last-pipeline-num-layers; docs/model.md §5.4)", member<&m::PlanSpec::pp_last_stage_layers>},
    {"pp_embedding_layers", "", "layers", D::value("0"), R::between(0, 1e6), "Layers the input embedding counts as in the balanced pipeline split: the first stage holds that many fewer blocks (torchtitan pipeline_parallel_first_stage_less_layers, default 1 there; Megatron --account-for-embedding-in-pipeline-split = 1; docs/model.md §5.4)", member<&m::PlanSpec::pp_embedding_layers>},
    {"pp_head_layers", "", "layers", D::value("0"), R::between(0, 1e6), "Layers the output head and loss count as in the balanced pipeline split (torchtitan pipeline_parallel_last_stage_less_layers; Megatron --account-for-loss-in-pipeline-split = 1; docs/model.md §5.4)", member<&m::PlanSpec::pp_head_layers>},
    {"sequence_parallel", "", "", D::value("false"), {}, "Megatron sequence parallelism over the TP group", member<&m::PlanSpec::sequence_parallel>},
    {"sharding", "", "", D::value("none"), {}, "Data-parallel sharding (none = plain DDP)", member<&m::PlanSpec::sharding>},
    {"shard_group", "", "GPUs", D::value("0", "{} (= one node)"), R::between(0, kMaxDegree), "hsdp: GPUs per shard group", member<&m::PlanSpec::shard_group>},
    {"recompute", "", "", D::value("selective"), {}, "Activation recomputation: selective = Megatron core attention, op_selective = torchtitan per-op policy (docs/model.md §7.5)", member<&m::PlanSpec::recompute>},
    {"recompute_modules", "names", "", D::value("core_attn"), {}, "recompute: selective only: the submodules re-run in backward, space- or comma-separated, of core_attn mlp moe_act layernorm mla_up_proj moe shared_experts (Megatron --recompute-modules; moe_act / moe set plan.moe_recompute to activation / layer; docs/model.md §7.11)"},
    {"fsdp_unit_layers", "", "blocks", D::value("1"), R::between(1, 1e6), "fsdp / hsdp only: transformer blocks per FSDP unit (gathered and freed together; more than a stage holds = one unit per stage; docs/model.md §6.3, §7.6)", member<&m::PlanSpec::fsdp_unit_layers>},
    {"recompute_layers", "", "blocks per stage", D::value("0", "{} (= all blocks)"), R::between(0, 1e6), "recompute: full only: blocks per pipeline stage checkpointed whole, the rest keep all activations (Megatron --recompute-num-layers; docs/model.md §7.5)", member<&m::PlanSpec::recompute_layers>},
    {"attention", "", "", D::value("flash"), {}, "Attention kernel", member<&m::PlanSpec::attention>},
    {"overlap_grad_reduce", "", "", D::value("true"), {}, "Overlap DP gradient reduction with backward", member<&m::PlanSpec::overlap_grad_reduce>},
    {"overlap_param_gather", "", "", D::value("true"), {}, "Overlap ZeRO parameter all-gathers with compute (fsdp/hsdp: prefetch the next unit)", member<&m::PlanSpec::overlap_param_gather>},
    {"reshard_after_forward", "", "", D::value("true"), {}, "fsdp/hsdp: free each unit's gathered weights after its forward and gather them again in backward (false: ZeRO-2-like, one gather per micro-batch; docs/model.md §6.3)", member<&m::PlanSpec::reshard_after_forward>},
    {"stack", "", "", D::derived("torch_fsdp2 when plan.sharding is fsdp or hsdp, else megatron_te", &erased<m::PlanSpec, &stack_from_sharding>), {}, "Training software stack: ZeRO/FSDP execution and the calibrated efficiency set (docs/model.md §6.7)", member<&m::PlanSpec::stack>},
    {"tp_comm_overlap", "", "", D::value("false"), {}, "Overlap TP collectives with GEMMs", member<&m::PlanSpec::tp_comm_overlap>},
    {"tp_dgrad_overlap", "", "", D::value("false"), {}, "Run each column-parallel layer's backward TP collective beside its weight-gradient GEMM (Megatron-LM's async_tensor_model_parallel_allreduce, default since 2021-09; with SP the reduce-scatter, and the input all-gather beside the input-gradient GEMM); dense blocks without tp_comm_overlap (docs/model.md §4.4)", member<&m::PlanSpec::tp_dgrad_overlap>},
    {"sync", "", "", D::value("synchronous"), {}, "Synchronisation across islands", member<&m::PlanSpec::sync>},
    {"pp_across_islands", "", "", D::value("false"), {}, "Pipeline stages span islands", member<&m::PlanSpec::pp_across_islands>},
    {"batch_split", "", "", D::value("balanced"), {}, "How heterogeneous islands split the global batch", member<&m::PlanSpec::batch_split>},
    {"ep", "", "GPUs", D::value("1"), kDegree, "Expert-parallel degree (MoE): routed experts split over this many GPUs", member<&m::PlanSpec::ep>},
    {"etp", "", "GPUs", D::value("1"), kDegree, "Expert tensor-parallel degree (MoE): each expert's matrices split", member<&m::PlanSpec::etp>},
    {"ep_dispatcher", "", "", D::value("alltoall"), {}, "MoE token dispatch: NCCL all-to-all, or DeepEP (one copy per node)", member<&m::PlanSpec::ep_dispatcher>},
    {"ep_overlap", "", "", D::value("false"), {}, "Overlap MoE all-to-alls with another micro-batch's compute (DualPipe / Megatron EP overlap)", member<&m::PlanSpec::ep_overlap>},
    {"moe_recompute", "", "", D::value("none"), {}, "MoE recomputation beyond plan.recompute (layer re-runs dispatch and combine)", member<&m::PlanSpec::moe_recompute>},
    {"pipeline_schedule", "", "", D::value("1f1b"), {}, "Pipeline schedule: 1f1b (interleaved when plan.interleave > 1) or dualpipe (DeepSeek-V3's bidirectional schedule: each rank holds two stages, pp + 1 micro-batches in flight, a shorter bubble; docs/model.md §5.8)", member<&m::PlanSpec::pipeline_schedule>},
    {"fp8_activation_cache", "", "", D::value("false"), {}, "DeepSeek-V3's low-precision activation caching (fp8 only): the attention output saved once in E5M6, the routed experts' SwiGLU inputs in fp8 (docs/model.md §7.12)", member<&m::PlanSpec::fp8_activation_cache>},
    {"activation_offload_layers", "", "blocks per stage", D::value("0", "{} (= off)"), R::between(0, 1e6), "Blocks whose saved activations are copied to host memory in forward and back in backward (Megatron --cpu-offloading-num-layers; megatron_te, pp 1, recompute none; docs/model.md §7.15)", member<&m::PlanSpec::activation_offload_layers>},
    {"optimizer_offload_fraction", "", "fraction", D::value("0", "{} (= off)"), R::between(0, 1), "Share of the optimizer state and master weights kept and updated on the host CPU (Megatron --optimizer-cpu-offload --optimizer-offload-fraction, DeepSpeed offload_optimizer, FSDP CPU offload: 1 only; docs/model.md §7.16)", member<&m::PlanSpec::optimizer_offload_fraction>},
    {"diloco", "map", "", D::described("all defaults"), {}, "DiLoCo settings (see plan.diloco)"},
  }},
  {Section::diloco, "plan.diloco:", "", {
    {"inner_steps", "", "steps", D::value("100"), R::between(1, 1e9), "H: inner steps between outer synchronisations", member<&m::DilocoSpec::inner_steps>},
    {"outer_bits", "32 | 16 | 8 | 4", "bits", D::value("32"), R::between(1, 64), "Precision of the pseudo-gradient all-reduce", choice<&m::DilocoSpec::outer_bits>},
    {"fragments", "", "", D::value("1"), R::between(1, 1e6), "Streaming DiLoCo fragments P", member<&m::DilocoSpec::fragments>},
    {"overlap_steps", "", "steps", D::value("0"), R::between(0, 1e9), "tau: inner steps the outer sync may hide behind", member<&m::DilocoSpec::overlap_steps>},
    {"fast_islands", "", "", D::value("wait"), {}, "What faster islands do while slower ones finish", member<&m::DilocoSpec::fast_islands>},
    {"offload_outer_state", "", "", D::value("false"), {}, "Keep outer parameters and momentum in host memory", member<&m::DilocoSpec::offload_outer_state>},
    // -1 selects the published default (model/job/diloco.hpp); a file may give 0 to 2.
    {"token_efficiency", "", "", D::value("-1", "published fit"), R::between(0.01, 2), "Loss-equivalent tokens per trained token; overrides the fitted convergence model (docs/model.md §9.4)", member<&m::DilocoSpec::token_efficiency>},
    {"efficiency_loss_per_h_doubling", "", "", D::value("0"), R::between(0, 0.9), "Extra token efficiency lost per doubling of H beyond 30, on top of the fitted model", member<&m::DilocoSpec::efficiency_loss_per_h_doubling>},
  }},
  {Section::runtime, "runtime:", "", {
    {"fragmentation_fraction", "", "fraction", D::value("0.07"), R::between(0, 0.5), "Allocator fragmentation reserve, fraction of the transient allocations (activations, logits, FSDP buffers; 0 to 0.5)", member<&m::RuntimeSpec::fragmentation_fraction>},
    {"runtime_overhead_gb", "", "GB", D::value("1.0"), R::between(0, 1e6), "CUDA context + NCCL buffers per GPU", converted<&gb_to_bytes, &m::RuntimeSpec::runtime_overhead_bytes>},
  }},
  {Section::goodput, "goodput:", "", {
    {"enabled", "", "", D::value("true"), {}, "Account for failures, checkpoints and restarts", member<&m::GoodputSpec::enabled>},
    {"failures_per_gpu_hour", "", "1/GPU-hour", D::value("0", "{} (= published default)"), R::between(0, 1000), "Failure rate per GPU", member<&m::GoodputSpec::failures_per_gpu_hour>},
    {"failures_per_node_day", "number", "1/node-day", D::described("none"), R::between(0, 1e5), "Alternative to failures_per_gpu_hour; divided by 24 × the first island's gpus_per_node"},
    {"checkpoint_write_s", "", "s", D::value("60"), kDurationS, "Time to write one checkpoint", member<&m::GoodputSpec::checkpoint_write_s>},
    {"storage_gbps_per_node", "", "Gbit/s", D::value("0", "none: checkpoint_write_s"), R::zero_or(kMinRate, 1e7), "Checkpoint write bandwidth per node; given, a checkpoint takes the state per node / this (Llama 3: 2 TB/s for 2,048 nodes = 7.8)", converted<&m::gbit_per_s_to_bytes_per_s, &m::GoodputSpec::storage_bytes_per_s_per_node>},
    {"async_checkpoint", "", "", D::value("false"), {}, "With storage_gbps_per_node: only the copy to host memory blocks training (PyTorch async DCP)", member<&m::GoodputSpec::async_checkpoint>},
    {"restart_s", "", "s", D::value("600"), kDurationS, "Time to restart after a failure (DiLoCo: the failed island's absence; the others train on)", member<&m::GoodputSpec::restart_s>},
  }},
  {Section::search, "search:", "read by `shardmeter search` (docs/search.md)", {
    {"axes", "map", "", D::described("required by `shardmeter search`"), {}, "Dotted scenario key -> the values to try (see search.axes); one axis per key, in the order written"},
    {"constraints", "map", "", D::described("none"), {}, "Limits every candidate must respect besides memory fit (see search.constraints)"},
    {"objectives", "list", "", D::described("[total_cost_usd, tokens_per_s]"), {}, "1 to 4 metrics of the result files; each a name (its natural direction) or a map (see search.objectives[N])"},
    {"framework", "torchtitan, torchtitan-py, megatron, deepspeed or torchrun", "", D::described("none: every plan"), {}, "Keep only the plans this framework's export can express, costed on its stack (plan.stack); `search --framework` overrides it (docs/search.md)"},
  }},
  {Section::search_axes, "search.axes:", "", {
    {"<dotted key>", "list or range", "the key's", D::described(""), {}, "Any key --set accepts (plan.tp, cluster.islands.0.gpu, training.micro_batch, plan.diloco.inner_steps, ...): a YAML list, or a range A:B:xK (geometric), A:B:+K (arithmetic), A:B (step 1)"},
  }},
  {Section::search_constraints, "search.constraints:", "", {
    {"max_total_cost_usd", "number", "USD", D::described("none"), R::between(-1e30, 1e30), "Budget for the whole token budget"},
    {"max_wall_clock_days", "number", "days", D::described("none"), R::between(-1e30, 1e30), "Deadline for the whole token budget, goodput losses included"},
    {"min_tokens_per_s", "number", "tokens/s", D::described("none"), R::between(-1e30, 1e30), "Throughput floor"},
    {"max_<metric>", "number", "the metric's", D::described("none"), R::between(-1e30, 1e30), "Upper bound on any metric column of the result files (results/README.md), e.g. max_memory_per_gpu_gb"},
    {"min_<metric>", "number", "the metric's", D::described("none"), R::between(-1e30, 1e30), "Lower bound on any metric column, e.g. min_mfu: 0.35"},
    {"gpu_quota", "map", "GPUs", D::described("none"), {}, "GPU type -> most GPUs of that type over all islands, e.g. {h100-sxm: 512}"},
  }},
  {Section::search_objective, "search.objectives[N]:", "a metric name, or this map", {
    {"metric", "name", "", D::described("required"), {}, "A metric column (total_cost_usd, tokens_per_s, wall_clock_days, mfu, cost_usd_per_million_tokens, ...)"},
    {"sense", "min | max", "", D::described("the metric's natural direction"), {}, "Minimise or maximise it (cost, time and memory are minimised; throughput, MFU and goodput maximised)"},
  }},
  {Section::link_catalog, "links.NAME:", "entries of scenarios/links.yaml", {
    {"efficiency", "", "fraction", kRequired, R::fraction(), "Achievable fraction of nominal bandwidth for large collectives", member<&LinkEntry::efficiency>},
    {"latency_us", "", "µs", kRequired, R::between(0, 1e6), "Per-hop latency (alpha)", converted<&m::us_to_s, &LinkEntry::latency_s>},
    {"source", "text", "", kRequired, {}, "Where the numbers come from", member<&LinkEntry::source>},
  }},
  {Section::preset_file, "", "A model preset file, scenarios/models/NAME.yaml", {
    {"name", "name", "", D::required("required", "is required in a model preset"), {}, "Preset name (= file name without .yaml)"},
    {"source", "text", "", D::required("required", "is required in a model preset"), {}, "Citation for the dimensions", member<&PresetInfo::source>},
    {"published_params_b", "", "billions", D::required("required", "is required in a model preset"), R::between(1e-6, 1e6), "Published parameter count (checked by the tests)", member<&PresetInfo::published_params_b>},
    {"published_active_b", "", "billions", D::value("0", "{} (dense: = published_params_b)"), R::between(0, 1e6), "Mixture of experts: published parameters per token (checked by the tests)", member<&PresetInfo::published_active_b>},
    {"active_excludes_embedding", "", "", D::value("false"), {}, "The publisher's active count leaves out the input embedding table (gpt-oss)", member<&PresetInfo::active_excludes_embedding>},
    {"model", "map", "", D::required("required", "is required in a model preset"), {}, "Model keys (as in model:, without preset)"},
  }},
  {Section::price_file, "prices.NAME:", "entries of a `--prices` file (estimate, search, sweep, thresholds, nightly), keyed by GPU type; each gives one or both", {
    {"price_usd_per_gpu_hour", "number", "USD per GPU-hour", D::described("the catalog's"), kPositivePrice, "On-demand price of catalog GPU NAME"},
    {"spot_price_usd_per_gpu_hour", "number", "USD per GPU-hour", D::described("the catalog's"), kPositivePrice, "Its spot price"},
  }},
  };
}
// clang-format on

}  // namespace

const KeyTable& scenario_keys() {
  static const KeyTable table(shipped_sections());
  return table;
}

std::span<const KeySpec> section_keys(Section section) { return scenario_keys().keys(section); }

std::vector<std::string_view> key_names(std::initializer_list<Section> sections) {
  return scenario_keys().names(sections);
}

}  // namespace shardmeter::cli
