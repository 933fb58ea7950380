#pragma once
// `shardmeter export`: one front row as a deployment artefact for a training framework.
//
//   plan-json   the whole plan, predicted metrics, per island nodes / GPUs / rank ranges ("schema_version": 1)
//   torchtitan  TOML job config ([parallelism], [training], [activation_checkpoint]; DiLoCo via [fault_tolerance])
//   megatron    Megatron-LM arguments as a bash array (MEGATRON_ARGS=( ... ))
//   deepspeed   DeepSpeed config JSON (ZeRO stage, batch sizes, precision, AutoTP, pipeline stages)
//   torchrun    one launch command per island (static rendezvous placeholders)
//
// Each format checks first that it can express the plan and throws ExportError("<format>", "<feature>") when it
// cannot (DiLoCo in a single-job format, ZeRO-1 in torchtitan, hsdp in DeepSpeed, ...). Field names and their
// sources are cited in each export_<format>.cpp. Pure functions: text out, nothing written.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "results/export/deploy_plan.hpp"
#include "results/front/run_info.hpp"

namespace shardmeter::results {

enum class ExportFormat { plan_json, torchtitan, megatron, deepspeed, torchrun };
std::span<const std::string_view> export_format_names();   // "plan-json", "torchtitan", ...
std::optional<ExportFormat> parse_export_format(std::string_view name);
std::string_view to_string(ExportFormat format) noexcept;

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

Exported export_plan(ExportFormat format, const DeployPlan& plan, const ExportSource& source);

Exported export_plan_json(const DeployPlan& plan, const ExportSource& source);
Exported export_torchtitan(const DeployPlan& plan, const ExportSource& source);
Exported export_megatron(const DeployPlan& plan, const ExportSource& source);
Exported export_deepspeed(const DeployPlan& plan, const ExportSource& source);
Exported export_torchrun(const DeployPlan& plan, const ExportSource& source);

// "# " comment lines naming the source and the predicted cost, throughput, wall-clock and MFU (TOML, shell).
std::string export_header_comment(const DeployPlan& plan, const ExportSource& source);
// Plans every single-job format rejects the same way: DiLoCo, and synchronous islands that differ in GPU type,
// size or node size (the job's batch split is then not uniform).
void require_single_uniform_job(std::string_view format, const DeployPlan& plan);

}  // namespace shardmeter::results
