#include "results/export/torchtitan_plan.hpp"

#include <algorithm>
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

}  // namespace

TorchtitanStages torchtitan_stages(std::string_view format, const DeployPlan& p) {
  const std::string f(format);
  const std::int64_t stages = p.pp * p.interleave;
  TorchtitanStages s;
  s.stages_per_rank = p.interleave;
  s.schedule = p.interleave > 1 ? "Interleaved1F1B" : "1F1B";
  if (p.explicit_stages())
    throw ExportError(f, fmt::format("explicit first / last stage counts ({} / {} layers; Megatron's "
                                     "--decoder-first/last-pipeline-num-layers): torchtitan splits the stages evenly, "
                                     "the embedding and head weighing plan.pp_embedding_layers / pp_head_layers",
                                     p.pp_first_stage_layers, p.pp_last_stage_layers));
  s.first_less = p.pp_embedding_layers;
  s.last_less = p.pp_head_layers;
  // torchtitan builds ceil(E / lps) virtual stages, E = L + first_less + last_less: the smallest lps giving pp x v.
  const std::int64_t effective = p.model.layers + s.first_less + s.last_less;
  for (std::int64_t lps = std::max<std::int64_t>(1, (effective + stages - 1) / stages); lps <= effective; ++lps) {
    const std::int64_t built = (effective + lps - 1) / lps;
    if (built == stages) {
      s.layers_per_stage = lps;
      return s;
    }
    if (built < stages) break;
  }
  throw ExportError(f, fmt::format("{} effective layers (layers + embedding + head weights) on {} x {} virtual "
                                   "stages: no pipeline_parallel_layers_per_stage makes torchtitan build {} stages",
                                   effective, p.pp, p.interleave, stages));
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
