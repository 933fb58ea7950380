#include "results/export/torchtitan_plan.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

namespace shardmeter::results {

namespace {

struct Flavor {
  std::string_view name;
  std::int64_t layers, hidden, heads, kv_heads;
};
// torchtitan/models/llama3/__init__.py (v0.2.2 lines 51-100; main@b5bcd76 `_8b`, `_70b`, `_405b`).
constexpr std::array<Flavor, 3> kLlama3 = {{
    {"8B", 32, 4096, 32, 8},
    {"70B", 80, 8192, 64, 8},
    {"405B", 126, 16384, 128, 8},
}};

struct MoeFlavor {
  std::string_view name, flavor;
  std::int64_t layers, hidden, heads, kv_heads, experts, top_k, shared_experts, expert_ffn_hidden, dense_layers;
};
// torchtitan v0.2.2: models/qwen3/__init__.py:145-192, models/deepseek_v3/__init__.py:130-156 (its n_kv_heads is
// n_heads: MLA).
constexpr std::array<MoeFlavor, 3> kMoe = {{
    {"qwen3", "30B-A3B", 48, 2048, 32, 4, 128, 8, 0, 768, 0},
    {"qwen3", "235B-A22B", 94, 4096, 64, 4, 128, 8, 0, 1536, 0},
    {"deepseek_v3", "671B", 61, 7168, 128, 128, 256, 8, 1, 2048, 3},
}};

}  // namespace

std::optional<TorchtitanModel> torchtitan_v0_2_2_model(const DeployModel& m) {
  if (!m.moe()) {
    if (const auto flavor = llama3_flavor(m)) return TorchtitanModel{"llama3", *flavor};
    return std::nullopt;
  }
  for (const MoeFlavor& f : kMoe)
    if (f.layers == m.layers && f.hidden == m.hidden && f.heads == m.heads && f.kv_heads == m.kv_heads &&
        f.experts == m.experts && f.top_k == m.top_k && f.shared_experts == m.shared_experts &&
        f.expert_ffn_hidden == m.expert_ffn_hidden && f.dense_layers == m.dense_layers && m.moe_every == 1)
      return TorchtitanModel{f.name, f.flavor};
  return std::nullopt;
}

TorchtitanStages torchtitan_stages(std::string_view format, const DeployPlan& p) {
  const std::string f(format);
  const std::int64_t layers = p.model.layers, stages = p.pp * p.interleave;
  TorchtitanStages s;
  s.stages_per_rank = p.interleave;
  s.schedule = p.interleave > 1 ? "Interleaved1F1B" : "1F1B";
  if (layers % stages == 0) {
    s.layers_per_stage = layers / stages;
    return s;
  }
  if (p.interleave > 1)
    throw ExportError(f, fmt::format("{} layers on {} x {} interleaved stages: the stages would differ in size, and "
                                     "torchtitan gives every virtual stage the same count",
                                     layers, p.pp, p.interleave));
  s.layers_per_stage = p.fullest_stage_layers();
  const std::int64_t missing = p.pp * s.layers_per_stage - layers;
  s.first_less = (missing + 1) / 2;
  s.last_less = missing / 2;
  if (s.first_less > s.layers_per_stage)
    throw ExportError(f, fmt::format("{} layers on {} stages: the first and last stage would have to hold {} fewer "
                                     "layers than the {} of the others, more than torchtitan's stage weights allow",
                                     layers, p.pp, missing, s.layers_per_stage));
  return s;
}

std::optional<std::string_view> llama3_flavor(const DeployModel& m) {
  for (const Flavor& f : kLlama3)
    if (f.layers == m.layers && f.hidden == m.hidden && f.heads == m.heads && f.kv_heads == m.kv_heads) return f.name;
  return std::nullopt;
}

void check_torchtitan_plan(std::string_view format, const DeployPlan& p) {
  const std::string f(format);
  if (p.multi_island() && !p.diloco())
    throw ExportError(f, fmt::format("a synchronous job across {} islands: torchtitan's config describes one device "
                                     "mesh with a uniform batch split, not islands joined by a WAN (use plan-json or "
                                     "torchrun)", p.islands.size()));
  if (p.sharding == "zero1")
    throw ExportError(f, "sharding zero1 (optimizer-state-only sharding): torchtitan shards with FSDP2 "
                         "(data_parallel_shard_degree), which also shards parameters and gradients");
  if (p.precision == "fp16")
    throw ExportError(f, "precision fp16: training.mixed_precision_param takes bfloat16 or float32");
  if (p.interleave > 1 && p.pp == 1) throw ExportError(f, "interleave > 1 without pipeline parallelism");
  if (p.model.seq_len % (p.tp * 2 * p.cp) != 0)
    throw ExportError(f, fmt::format("sequence length {} is not a multiple of tp x 2 x cp = {}, which torchtitan's "
                                     "sequence and context parallel split needs",
                                     p.model.seq_len, p.tp * 2 * p.cp));
}

}  // namespace shardmeter::results
