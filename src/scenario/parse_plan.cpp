// plan: parallel degrees, sharding, recompute, overlap switches, multi-island behaviour and DiLoCo, read through
// the key table; the one cross-key check of plan.diloco stays here.
#include "src/scenario/parse_plan.hpp"

#include <string>

#include "src/scenario/key_reader.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

void parse_diloco(const YamlField& field, m::DilocoSpec& out, const KeyTable& keys) {
  const YamlMap diloco = section_map(keys, field, {Section::diloco});
  read_keys(keys, Section::diloco, diloco, out);
  if (diloco.has("overlap_steps") && out.overlap_steps >= out.inner_steps)
    throw diloco["overlap_steps"].error("must be smaller than plan.diloco.inner_steps = " +
                                        std::to_string(out.inner_steps));
}

}  // namespace

void parse_plan(const YamlField& field, m::PlanSpec& out, const KeyTable& keys) {
  const YamlMap plan = section_map(keys, field, {Section::plan});
  apply_defaults(keys, Section::plan, out);
  apply_defaults(keys, Section::diloco, out.diloco);
  read_keys(keys, Section::plan, plan, out);
  if (plan.has("diloco")) parse_diloco(plan["diloco"], out.diloco, keys);
  apply_derived(keys, Section::plan, out, [&](std::string_view key) { return plan.has(key); });
  if (out.recompute_layers > 0 && out.recompute != m::Recompute::full)
    throw plan["recompute_layers"].error("needs plan.recompute: full (it counts the blocks checkpointed whole)");
  if (out.fsdp_unit_layers > 1 && out.sharding != m::Sharding::fsdp && out.sharding != m::Sharding::hsdp)
    throw plan["fsdp_unit_layers"].error("needs plan.sharding: fsdp or hsdp (it sizes the units FSDP gathers)");
}

}  // namespace shardmeter::cli
