#pragma once
// `shardmeter export`: one front row as a deployment artefact for a training framework, written for one pinned
// version of it (export_target) and checked by tests that replay that version's own configuration checks
// (tests/python/replay/, docs/export.md).
//
//   plan-json      the whole plan, the model, predicted metrics, per island nodes / GPUs / rank ranges
//   torchtitan     TOML job config for torchtitan v0.2.2, the last release that reads TOML
//   torchtitan-py  a Python config function returning Trainer.Config, for torchtitan main after the TOML removal
//   megatron       Megatron-LM core_v0.19.0 arguments as a bash array (MEGATRON_ARGS=( ... ))
//   deepspeed      DeepSpeed v0.16.4 config JSON (ZeRO stage or MiCS, batch sizes, precision, AutoTP, pipeline)
//   torchrun       one PyTorch v2.6.0 torchrun launch command per island (static rendezvous placeholders)
//
// Each format checks first that it can express the plan and throws ExportError("<format>", "<feature>") when it
// cannot. Field names and their sources are cited in each export_<format>.cpp. Pure functions: text out, nothing
// written.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "results/export/deployment.hpp"
#include "results/export/enum_format.hpp"
#include "results/front/run_info.hpp"

namespace shardmeter::results {

enum class ExportFormat { plan_json, torchtitan, torchtitan_py, megatron, deepspeed, torchrun };
std::span<const std::string_view> export_format_names();   // "plan-json", "torchtitan", ...
std::optional<ExportFormat> parse_export_format(std::string_view name);
std::string_view to_string(ExportFormat format) noexcept;

// The framework version a format writes for. Every artefact names it on a `target:` header line (JSON: a "target"
// key) so a reader, and the replay tests, know which version's rules apply.
struct ExportTarget {
  std::string_view framework;   // "torchtitan"
  std::string_view version;     // "v0.2.2"
  std::string_view pinned;      // "pytorch/torchtitan@73a0e6979dd1 (2026-02-20), the last release that reads TOML"
};
const ExportTarget& export_target(ExportFormat format) noexcept;

// Where the plan came from, for the artefact's header and plan-json's "source".
struct ExportSource {
  const RunInfo* info = nullptr;   // required
  const Row* row = nullptr;        // required: the row the plan was made from (predicted metrics)
  std::string front_path;
  std::string pick;                // "cheapest", "fastest", "knee" or the row number as typed
};

struct Exported {
  std::string text;
  std::vector<std::string> notes;  // things the user must still do by hand (printed on stderr by the CLI)
};

Exported export_plan(ExportFormat format, const Deployment& plan, const ExportSource& source);

Exported export_plan_json(const Deployment& plan, const ExportSource& source);
Exported export_torchtitan(const Deployment& plan, const ExportSource& source);
Exported export_torchtitan_py(const Deployment& plan, const ExportSource& source);
Exported export_megatron(const Deployment& plan, const ExportSource& source);
Exported export_deepspeed(const Deployment& plan, const ExportSource& source);
Exported export_torchrun(const Deployment& plan, const ExportSource& source);

// The header every artefact starts with, one line each: target, source, plan, model, predicted figures and the
// calibration status of the plan's GPU types. Comment formats prefix each line with "# ".
std::vector<std::string> export_header_lines(ExportFormat format, const Deployment& plan, const ExportSource& source);
std::string export_header_comment(ExportFormat format, const Deployment& plan, const ExportSource& source);
// "h100-sxm calibrated", "b200 UNCALIBRATED (...)", per GPU type of the plan; "unknown" for files before
// schema_version 3.
std::string calibration_line(const Deployment& plan, const Row& row, const RunInfo& info);
// Plans every single-job format rejects the same way: DiLoCo, and synchronous islands that differ in GPU type,
// size or node size (the job's batch split is then not uniform).
// The plan's stack as the calibration marks name it (model/spec/enum_names.hpp); "" when the row does not say.
std::string stack_name(const Deployment& plan);
void require_single_uniform_job(std::string_view format, const Deployment& plan);

}  // namespace shardmeter::results
