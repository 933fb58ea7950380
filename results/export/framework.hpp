#pragma once
// The frameworks a plan can be searched for (`shardmeter search --framework NAME`, `search: {framework: NAME}`):
// one table of {name, export format, stack}. A plan suits a framework when that framework's export writes it: the
// search asks the export itself (export_refusal), so the search and `shardmeter export` refuse a plan by the same
// rules, declared once in the export_<format>.cpp writers (docs/export.md, docs/search.md "Searching for a
// framework").
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "model/spec/enums.hpp"
#include "results/export/export_formats.hpp"

namespace shardmeter::results {

struct Framework {
  std::string_view name;               // as --framework takes it: the export format's name
  ExportFormat format;                 // the export that launches it
  std::optional<model::Stack> stack;   // the stack its plans are costed on; none = the scenario's (torchrun)
  // Whether it runs fp8 weight all-gathers (training.fp8_params); a search for one that does not costs its plans
  // with the key off, as its export writes them (torchtitan-py: export_torchtitan_py.cpp).
  bool fp8_gathers = true;
};
std::span<const Framework> frameworks() noexcept;
const Framework* find_framework(std::string_view name) noexcept;
std::string framework_names();         // "torchtitan, torchtitan-py, megatron, deepspeed, torchrun"

// Why `format` cannot express the plan, or "" when it can: runs the export and returns its ExportError's feature.
std::string export_refusal(ExportFormat format, const Deployment& plan, const ExportSource& source);
// The reason a refusal is counted under: its feature text up to the first ':' ("sharding zero1 (optimizer-state-only
// sharding)"), so refusals that differ only in the plan's figures count together.
std::string refusal_reason(std::string_view feature);

}  // namespace shardmeter::results
