// plan: parallel degrees, sharding, recompute, overlap switches, multi-island behaviour and DiLoCo, read through
// the key table; the one cross-key check of plan.diloco stays here.
#include "src/scenario/parse_plan.hpp"

#include <string>

#include <fmt/format.h>

#include "model/spec/enum_names.hpp"

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

// plan.recompute_modules: Megatron's module names, space- or comma-separated, into the bit set; moe_act and moe are
// carried by plan.moe_recompute (docs/model.md §7.11), which must then not say otherwise.
void parse_recompute_modules(const YamlMap& plan, m::PlanSpec& out) {
  const YamlField field = plan["recompute_modules"];
  const std::string text = field.as_string();
  std::string allowed;
  for (const auto& v : m::enum_names<m::RecomputeModule>()) {
    if (!allowed.empty()) allowed += ' ';
    allowed += v.name;
  }
  unsigned bits = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find_first_of(" ,", at);
    const std::string word = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? text.size() : end + 1;
    if (word.empty()) continue;
    unsigned bit = 0;
    for (const auto& v : m::enum_names<m::RecomputeModule>())
      if (v.name == word) bit = 1u << static_cast<unsigned>(v.value);
    if (bit == 0) throw field.error(fmt::format("names '{}', not a module; one of: {}", word, allowed));
    bits |= bit;
  }
  if (bits == 0) throw field.error("names no module (give at least one, e.g. core_attn)");
  if (out.recompute != m::Recompute::selective)
    throw field.error("needs plan.recompute: selective (Megatron reads --recompute-modules only then)");
  const bool act = (bits >> static_cast<unsigned>(m::RecomputeModule::moe_act)) & 1u;
  const bool layer = (bits >> static_cast<unsigned>(m::RecomputeModule::moe)) & 1u;
  const m::MoeRecompute implied = layer ? m::MoeRecompute::layer : act ? m::MoeRecompute::activation : m::MoeRecompute::none;
  if (plan.has("moe_recompute") && out.moe_recompute != implied)
    throw field.error(fmt::format("says moe_recompute {} but plan.moe_recompute is {}", m::enum_name(implied),
                                  m::enum_name(out.moe_recompute)));
  out.recompute_modules = bits;
  out.moe_recompute = implied;
}

}  // namespace

void parse_plan(const YamlField& field, m::PlanSpec& out, const KeyTable& keys) {
  const YamlMap plan = section_map(keys, field, {Section::plan});
  apply_defaults(keys, Section::plan, out);
  apply_defaults(keys, Section::diloco, out.diloco);
  read_keys(keys, Section::plan, plan, out);
  if (plan.has("diloco")) parse_diloco(plan["diloco"], out.diloco, keys);
  apply_derived(keys, Section::plan, out, [&](std::string_view key) { return plan.has(key); });
  if (plan.has("recompute_modules")) {
    parse_recompute_modules(plan, out);
  } else if (out.moe_recompute != m::MoeRecompute::none) {
    // plan.moe_recompute alone: the bit set says the same module (Megatron's list would name it).
    out.recompute_modules |= 1u << static_cast<unsigned>(out.moe_recompute == m::MoeRecompute::layer
                                                              ? m::RecomputeModule::moe
                                                              : m::RecomputeModule::moe_act);
  }
  if (out.recompute_layers > 0 && out.recompute != m::Recompute::full)
    throw plan["recompute_layers"].error("needs plan.recompute: full (it counts the blocks checkpointed whole)");
  if (out.fsdp_unit_layers > 1 && out.sharding != m::Sharding::fsdp && out.sharding != m::Sharding::hsdp)
    throw plan["fsdp_unit_layers"].error("needs plan.sharding: fsdp or hsdp (it sizes the units FSDP gathers)");
}

}  // namespace shardmeter::cli
