// plan: parallel degrees, sharding, recompute, overlap switches, multi-island behaviour and DiLoCo.
#include "src/scenario/parse_plan.hpp"

#include "src/scenario/scenario_schema.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

constexpr double kMaxDegree = 1 << 20;

void parse_diloco(const YamlField& field, m::DilocoSpec& out) {
  const auto keys = key_names({Section::diloco});
  const YamlMap diloco(field, keys);
  diloco.read("inner_steps", out.inner_steps, Range::between(1, 1e9));
  if (diloco.read("outer_bits", out.outer_bits, Range::between(1, 64)) && out.outer_bits != 32 &&
      out.outer_bits != 16 && out.outer_bits != 8 && out.outer_bits != 4)
    throw diloco["outer_bits"].error("is not one of 32 | 16 | 8 | 4");
  diloco.read("fragments", out.fragments, Range::between(1, 1e6));
  diloco.read("overlap_steps", out.overlap_steps, Range::between(0, 1e9));
  if (out.overlap_steps >= out.inner_steps && diloco.has("overlap_steps"))
    throw diloco["overlap_steps"].error("must be smaller than plan.diloco.inner_steps = " +
                                        std::to_string(out.inner_steps));
  diloco.read_enum("fast_islands", out.fast_islands);
  diloco.read("offload_outer_state", out.offload_outer_state);
  diloco.read("token_efficiency", out.token_efficiency, Range::between(0, 2));
  diloco.read("efficiency_loss_per_h_doubling", out.efficiency_loss_per_h_doubling, Range::between(0, 1));
}

}  // namespace

void parse_plan(const YamlField& field, m::PlanSpec& out) {
  const auto keys = key_names({Section::plan});
  const YamlMap plan(field, keys);
  plan.read("tp", out.tp, Range::between(1, kMaxDegree));
  plan.read("pp", out.pp, Range::between(1, kMaxDegree));
  plan.read("cp", out.cp, Range::between(1, kMaxDegree));
  plan.read("interleave", out.interleave, Range::between(1, 1024));
  plan.read("sequence_parallel", out.sequence_parallel);
  plan.read_enum("sharding", out.sharding);
  plan.read("shard_group", out.shard_group, Range::between(0, kMaxDegree));
  plan.read_enum("recompute", out.recompute);
  plan.read_enum("attention", out.attention);
  plan.read("overlap_grad_reduce", out.overlap_grad_reduce);
  plan.read("overlap_param_gather", out.overlap_param_gather);
  plan.read("tp_comm_overlap", out.tp_comm_overlap);
  plan.read_enum("sync", out.sync);
  plan.read("pp_across_islands", out.pp_across_islands);
  plan.read_enum("batch_split", out.batch_split);
  if (plan.has("diloco")) parse_diloco(plan["diloco"], out.diloco);
}

}  // namespace shardmeter::cli
