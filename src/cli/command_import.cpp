// `shardmeter import hf|megatron|torchtitan|deepspeed INPUT [...]`: a Hugging Face config.json or an existing launch
// configuration, with the cluster the user names, as a scenario file (printed, or written atomically with -o) and,
// with --estimate, its estimate. The readers are src/import/ (docs/import.md).
#include <fstream>
#include <iostream>
#include <sstream>

#include "model/job/evaluate.hpp"
#include "results/files/atomic_file.hpp"
#include "results/files/estimate_json.hpp"
#include "src/cli/command_catalog.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/path_collisions.hpp"
#include "src/import/deepspeed_config.hpp"
#include "src/import/hf_import.hpp"
#include "src/import/megatron_args.hpp"
#include "src/import/scenario_merge.hpp"
#include "src/import/torchtitan_toml.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/input_limits.hpp"
#include "src/text/estimate_table.hpp"
#include "src/scenario/stack_source.hpp"

namespace shardmeter::cli {

namespace {

std::string read_input(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(SourceLocation{path, 0, 0}, "", "", "cannot be read");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  check_input_text(text, path);
  return text;
}

}  // namespace

int run_import(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("import"));
  line.text("scenario", "FILE", "base scenario: the cluster, token budget and prices, and what the imported file "
                                "cannot say (docs/import.md)");
  line.text("gpu", "TYPE", "one island of this GPU type (with --nodes or --gpus), replacing the base's cluster");
  line.integer("nodes", "N", "nodes of --gpu", Range::between(1, 1e6));
  line.integer("gpus", "N", "GPUs of --gpu", Range::between(1, 1e8));
  line.text("model", "PRESET", "the model, for files that do not describe it (deepspeed, unknown torchtitan flavors)");
  line.number("tokens", "N", "training.tokens: the token budget", Range::between(0, 1e18));
  line.integer("seq-len", "N", "hf: model.seq_len (config.json holds the context limit, not the training length)",
               Range::between(1, 1e8));
  line.text("name", "NAME", "the scenario's name (default: the base's, or imported-FRAMEWORK)");
  line.text("args", "TEXT", "megatron: the arguments as one string instead of a file");
  line.flag("estimate", "also print the scenario's estimate");
  line.output("FILE", "write the scenario here (atomically) instead of stdout");
  line.add(SharedOption::set).add(SharedOption::data_dir).add(SharedOption::json);
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    out << "\nFORMAT is hf, megatron, torchtitan or deepspeed. hf without a cluster prints the model block alone.\n"
           "Keys the file gives override the base scenario's; --set overrides both. docs/import.md has the tables.\n";
    return 0;
  }
  const std::vector<std::string>& pos = line.positional();
  if (pos.empty()) throw line.usage("name the FORMAT: hf, megatron, torchtitan or deepspeed");
  const std::string format = pos[0];
  const bool args_text = line.has("args");
  if (args_text && format != "megatron") throw line.usage("--args is for megatron");
  if (pos.size() != (args_text ? 1u : 2u))
    throw line.usage(args_text ? "--args replaces INPUT" : "give one INPUT file after the FORMAT");
  const std::string input = args_text ? "--args" : pos[1];
  if (line.has("output")) {
    std::vector<PathUse> inputs;
    if (!args_text) inputs.push_back({"INPUT", input});
    if (line.has("scenario")) inputs.push_back({"--scenario", line.text("scenario")});
    check_path_collisions("import", inputs, {{"-o", line.output()}});
  }

  ImportBase base;
  base.scenario_path = line.text("scenario");
  base.gpu = line.text("gpu");
  if (line.has("nodes")) base.nodes = line.integer("nodes");
  if (line.has("gpus")) base.gpus = line.integer("gpus");
  base.model_preset = line.text("model");
  if (line.has("tokens")) base.tokens = line.number("tokens");
  base.name = line.text("name");
  base.overrides = line.overrides();

  const bool model_block_only = format == "hf" && base.scenario_path.empty() && base.gpu.empty();
  if (!model_block_only) check_import_base(base);

  ImportedScenario imported;
  if (format == "hf") {
    imported = import_hf(input, line.has("seq-len") ? line.integer("seq-len") : 0);
  } else if (format == "megatron") {
    imported = import_megatron(args_text ? line.text("args") : read_input(input), input);
  } else if (format == "torchtitan") {
    imported = import_torchtitan(read_input(input), input);
  } else if (format == "deepspeed") {
    imported = import_deepspeed(input);
  } else {
    throw line.usage("FORMAT " + format + " is not hf, megatron, torchtitan or deepspeed");
  }
  if (line.has("seq-len") && format != "hf") throw line.usage("--seq-len is for hf");

  // hf with no cluster: the model block alone.
  if (model_block_only) {
    if (line.flag("estimate")) throw line.usage("--estimate needs a cluster: --scenario FILE or --gpu TYPE --nodes N");
    const std::string block = hf_model_block(imported);
    if (line.has("output")) results::write_text_atomically(line.output(), block);
    else out << block;
    return 0;
  }
  const Catalog catalog = load_command_catalog(line);
  const MergedScenario merged = merge_import(imported, base, catalog);
  if (line.has("output")) results::write_text_atomically(line.output(), merged.yaml);
  else if (!line.flag("estimate")) out << merged.yaml;
  for (const std::string& note : imported.notes) std::cerr << "shardmeter import: note: " << note << "\n";
  if (line.flag("estimate")) {
    const model::Estimate estimate = model::evaluate(merged.loaded.scenario);
    if (line.json())
      out << results::estimate_json(merged.loaded.scenario, estimate, merged.loaded.name,
                                    uncalibrated_in(catalog, merged.loaded.scenario), results::JsonLayout::indented,
                                    stack_source(merged.loaded.doc));
    else
      out << format_estimate_table(merged.loaded, catalog, estimate);
  }
  return 0;
}

}  // namespace shardmeter::cli
