// torchtitan-py: a Python config function for torchtitan main after the TOML removal ("[BC Breaking] Config
// System Refactor: TOML to Python Dataclass Registry", #2386, commit 9810191, 2026-02-23), pinned to
// pytorch/torchtitan@b5bcd76c66d0 (2026-08-21). A run is a function returning Trainer.Config, chosen with
// `--module <module> --config <function>` (torchtitan/config/README.md). The function starts from torchtitan's own
// llama3 recipe (models/llama3/config_registry.py: llama3_8b, llama3_70b, llama3_405b: optimizer, data,
// checkpointing, tokenizer) and replaces what the plan decides. Names at that commit:
//   torchtitan/config/configs.py  TrainingConfig(num_tokens_per_microbatch_per_dp_rank, num_tokens_per_train_step,
//                                 max_context_length, steps, mixed_precision_param, disable_cuda_graphs),
//                                 ParallelismConfig(data_parallel_replicate_degree, data_parallel_shard_degree,
//                                 fsdp_reshard_after_forward, tensor_parallel_degree, enable_sequence_parallel,
//                                 pipeline_parallel_degree, pipeline_parallel_schedule,
//                                 pipeline_parallel_layers_per_stage, pipeline_parallel_first/last_stage_less_layers,
//                                 num_pp_microbatches, context_parallel_degree), CompileConfig
//   torchtitan/trainer.py          gradient accumulation = num_tokens_per_train_step / (tokens per micro-batch x
//                                 num_pp_microbatches x dp) (lines 409-428); CUDA graphs (on by default) refuse
//                                 pipeline parallelism (lines 171-176)
//   torchtitan/distributed/activation_checkpoint.py  SelectiveAC.Config(), FullAC.Config(), or None
//   torchtitan/models/llama3/__init__.py  model_registry(flavor, converters=[Float8LinearConverter.Config(...)])
// TrainingConfig and ParallelismConfig take the field list both torchtitan writers share (torchtitan_plan.hpp).
// DiLoCo lives in experiments/torchft with its own trainer there: this target refuses it (use torchtitan, v0.2.2).
#include <fmt/format.h>

#include "results/export/export_formats.hpp"
#include "results/export/torchtitan_plan.hpp"
#include "results/front/front_picks.hpp"
#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "torchtitan-py";

// Why fp8 all-gathers are written off: torchtitan v0.2.2 spelled them [quantize.linear.float8]
// enable_fsdp_float8_all_gather (config/job_config.py Float8Linear, for torchao's tensorwise scaling); at
// main@b5bcd76 Float8LinearConverter.Config (components/quantization/float8.py) holds only recipe_name ("rowwise" |
// "rowwise_with_gw_hp"), filter_fqns and emulate, and no source file under torchtitan/ names an fp8 all-gather.
constexpr const char* kNoFp8Gathers =
    "training.fp8_params off: torchtitan main@b5bcd76 has no fp8 all-gather (Float8LinearConverter.Config holds "
    "recipe_name rowwise | rowwise_with_gw_hp, filter_fqns, emulate; v0.2.2's enable_fsdp_float8_all_gather is "
    "gone), so FSDP gathers the weights in bf16";

std::string_view check(const Deployment& p) {
  check_torchtitan_plan(kFormat, p);
  if (p.diloco())
    throw ExportError(kFormat, fmt::format("DiLoCo across {} islands: on torchtitan main it runs through "
                                           "experiments/torchft's own trainer, not a Trainer.Config (use torchtitan, "
                                           "the v0.2.2 TOML)", p.islands.size()));
  if (p.moe())
    throw ExportError(kFormat, fmt::format("an MoE model ({} experts): the config function starts from a llama3 "
                                           "recipe; main's MoE models take their experts from their own recipes, and "
                                           "its ParallelDims has expert_parallel_degree but no expert tensor "
                                           "parallelism (distributed/parallel_dims.py:139-192; use torchtitan, the "
                                           "v0.2.2 TOML)", p.model().moe.experts));
  // training.fp8_params: main@b5bcd76 has no fp8 all-gather (kNoFp8Gathers); the plan is written without it and
  // re-costed so (Deployment::without_fp8_gathers), which needs the row's scenario and a plan that still fits.
  if (p.training().precision == model::Precision::fp8 && p.training().fp8_params) {
    if (!p.without_fp8_gathers)
      throw ExportError(kFormat, "training.fp8_params (weights all-gathered in fp8), which main@b5bcd76 does not "
                                 "run, and the row's scenario could not be rebuilt to re-cost the plan without it "
                                 "(use torchtitan, the v0.2.2 TOML, which spells it enable_fsdp_float8_all_gather)");
    if (!p.without_fp8_gathers->feasible)
      throw ExportError(kFormat, fmt::format("training.fp8_params (weights all-gathered in fp8), which main@b5bcd76 "
                                             "does not run: without it the plan is {} (use torchtitan, the v0.2.2 "
                                             "TOML, which spells it enable_fsdp_float8_all_gather)",
                                             p.without_fp8_gathers->reject_reason));
  }
  const auto flavor = llama3_flavor(p);
  if (!flavor)
    throw ExportError(kFormat, fmt::format("a model of {} layers, hidden {}, {} heads ({} KV): the config function "
                                           "starts from a torchtitan llama3 recipe (8B, 70B or 405B), and none has "
                                           "these dimensions", p.model().layers, p.model().hidden, p.model().heads,
                                           p.model().kv_heads));
  return *flavor;
}

std::string recipe_of(std::string_view flavor) {
  std::string name = "llama3_" + std::string(flavor);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;   // llama3_8b, llama3_70b, llama3_405b
}

}  // namespace

Exported export_torchtitan_py(const Deployment& p, const ExportSource& source) {
  const std::string_view flavor = check(p);
  const std::string recipe = recipe_of(flavor);
  Exported out;
  std::string& t = out.text;
  t = export_header_comment(ExportFormat::torchtitan_py, p, source);
  if (p.training().precision == model::Precision::fp8 && p.training().fp8_params) {
    // The figures of the plan this file trains, in place of the row's (which assume fp8 gathers).
    const model::Estimate& r = *p.without_fp8_gathers;
    t += "# " + comment_text(fmt::format("re-costed with {}: {}, {} tokens/s, {} days, MFU {}, {} GB per GPU (the "
                                         "predicted line above is the row's, with fp8 all-gathers)",
                                         kNoFp8Gathers, format_usd(r.total_cost_usd), format_si(r.tokens_per_s),
                                         format_fixed(r.wall_clock_s / 86400.0, 1), format_percent(r.mfu),
                                         format_fixed(r.memory_per_gpu_bytes / 1e9, 1))) + "\n";
    out.notes.push_back(std::string("torchtitan-py: ") + kNoFp8Gathers + "; the header's re-costed line gives the "
                        "plan's figures without them");
  }
  t += fmt::format("# degrees: data_parallel_shard {} x data_parallel_replicate {} x tp {} x pp {} x cp {} = {} GPUs\n",
                   p.degrees().dp_shard, p.degrees().dp_replicate, p.plan().tp, p.plan().pp, p.plan().cp, p.degrees().dp_shard * p.degrees().dp_replicate * p.model_parallel());
  t += "# Run: MODULE=<this file's module> CONFIG=shardmeter_plan ./run_train.sh (torchrun on every node)\n";
  if (p.training().precision == model::Precision::fp8) t += "from torchtitan.components.quantization import Float8LinearConverter\n";
  t += "from torchtitan.config import CompileConfig, ParallelismConfig, TrainingConfig\n";
  const TorchtitanCheckpointing ac = torchtitan_checkpointing(TorchtitanTarget::main, kFormat, p);
  std::string ac_class;
  switch (ac.mode) {
    case TorchtitanAcMode::none: break;
    case TorchtitanAcMode::full: ac_class = "FullAC"; break;
    case TorchtitanAcMode::selective: ac_class = "SelectiveAC"; break;
  }
  if (!ac_class.empty()) t += "from torchtitan.distributed.activation_checkpoint import " + ac_class + "\n";
  t += "from torchtitan.models.llama3 import model_registry\n";
  t += fmt::format("from torchtitan.models.llama3.config_registry import {}\n", recipe);
  t += "from torchtitan.trainer import Trainer\n\n\n";

  t += "def shardmeter_plan() -> Trainer.Config:\n";
  t += "    # " + comment_text(fmt::format("scenario {}, front row {}", source.info->scenario_name, row_number(p.record.row))) +
       "\n";
  t += fmt::format("    config = {}()  # torchtitan's recipe: optimizer, data, checkpointing, tokenizer\n", recipe);
  if (p.training().precision == model::Precision::fp8)
    t += fmt::format("    config.model_spec = model_registry(\n        \"{}\",\n        converters=[Float8LinearConverter."
                     "Config(model_compile_enabled=False)],\n    )\n", flavor);
  else
    t += fmt::format("    config.model_spec = model_registry(\"{}\")\n", flavor);
  if (const auto known = torchtitan_v0_2_2_model(p)) {
    if (const std::string differs = torchtitan_numerics_mismatch(*known, p); !differs.empty()) {
      t += "    # " + comment_text(differs) + "\n";
      out.notes.push_back("torchtitan-py: " + differs);
    }
  }
  t += "    config.compile = CompileConfig()  # the plan assumes no torch.compile\n";

  t += "    config.training = TrainingConfig(\n" +
       python_arguments(torchtitan_training_fields(TorchtitanTarget::main, p), "        ") + "    )\n";
  t += "    config.parallelism = ParallelismConfig(\n" +
       python_arguments(torchtitan_parallelism_fields(TorchtitanTarget::main, kFormat, p), "        ") + "    )\n";
  // The recipe's scheduler keeps its decay; the warm-up is the plan's.
  if (const auto warmup = torchtitan_warmup_field(p))
    t += fmt::format("    config.lr_scheduler.warmup_steps = {}  # {}\n", warmup->python, warmup->comment);
  if (ac_class.empty())
    t += "    config.activation_checkpoint = None" + (ac.comment.empty() ? "" : "  # " + ac.comment) + "\n";
  else t += "    config.activation_checkpoint = " + ac_class + ".Config()\n";
  t += "    return config\n";
  out.notes.push_back(fmt::format("torchtitan-py: save as a module importable from the torchtitan checkout and run it "
                                  "with MODULE=<module> CONFIG=shardmeter_plan; the rest comes from {}()", recipe));
  return out;
}

}  // namespace shardmeter::results
