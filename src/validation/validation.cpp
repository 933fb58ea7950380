#include "src/validation/validation.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "model/job/evaluate.hpp"
#include "model/kernels/flops.hpp"
#include "model/kernels/parameters.hpp"
#include "results/files/csv.hpp"
#include "results/errors.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace shardmeter::cli {

namespace {

// One record of the table with its line, addressed by column name.
struct CsvRow {
  int line = 0;
  const std::vector<std::string>* header = nullptr;
  const std::vector<std::string>* cells = nullptr;
  std::string path;
  const std::string& at(const std::string& column) const {
    for (std::size_t i = 0; i < header->size(); ++i)
      if ((*header)[i] == column) return (*cells)[i];
    throw ScenarioError({path, line, 0}, column, "", "is not a column of the table");
  }
  // A column tables written before it existed may leave out (the mixture-of-experts columns): "" when absent.
  std::string optional(const std::string& column) const {
    for (std::size_t i = 0; i < header->size(); ++i)
      if ((*header)[i] == column) return (*cells)[i];
    return "";
  }
};

// The row's columns, in the scenario section they belong to.
constexpr const char* kModelColumns[] = {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "ffn_type", "vocab",
                                         "seq_len", "norm", "position_embedding", "bias", "tied_embeddings", "dropout"};
constexpr const char* kTrainingColumns[] = {"global_batch", "micro_batch", "precision", "grad_reduce_dtype"};
constexpr const char* kPlanColumns[] = {"tp", "pp", "cp", "interleave", "sequence_parallel", "sharding", "recompute", "stack",
                                        "attention", "overlap_grad_reduce", "overlap_param_gather", "tp_comm_overlap"};
// Mixture-of-experts rows (scenarios/validation/README.md §1): the expert folding, and `extra_keys`, a list of
// `dotted.key=value` separated by ';' for the other MoE settings (plan.ep_dispatcher, plan.ep_overlap, ...).
constexpr const char* kMoePlanColumns[] = {"ep", "etp"};

RowUse parse_use(const CsvRow& row, const std::string& path) {
  const std::string& use = row.at("use");
  if (use == "calibrate") return RowUse::calibrate;
  if (use == "holdout") return RowUse::holdout;
  if (use == "reference") return RowUse::reference;
  throw ScenarioError({path, row.line, 0}, "use", use, "is not one of calibrate, holdout, reference");
}

double parse_number(const CsvRow& row, const std::string& column, const std::string& path) {
  const std::string& text = row.at(column);
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw ScenarioError({path, row.line, 0}, column, text, "is not a number");
}

// The row as a scenario document, so that presets, the GPU catalog and all validation apply as for user files.
ScenarioDocument row_document(const CsvRow& row, const std::string& path) {
  YAML::Node root;
  root["name"] = row.at("id");
  // A row naming a preset takes its dimensions from it (an MoE model's experts and MLA ranks have no columns);
  // model columns it leaves empty are the preset's.
  const bool preset = !row.at("model_preset").empty();
  if (preset) root["model"]["preset"] = row.at("model_preset");
  for (const char* c : kModelColumns)
    if (!preset || !row.at(c).empty()) root["model"][c] = YAML::Load(row.at(c));
  for (const char* c : kTrainingColumns) root["training"][c] = YAML::Load(row.at(c));
  root["training"]["tokens"] = 1e9;
  YAML::Node island;
  island["name"] = "cluster";
  island["gpu"] = row.at("gpu");
  island["gpus"] = YAML::Load(row.at("gpus"));
  island["gpus_per_node"] = YAML::Load(row.at("gpus_per_node"));
  island["node_network_gbps"] = YAML::Load(row.at("node_network_gbps"));
  root["cluster"]["islands"].push_back(island);
  // An empty stack cell leaves plan.stack out: the stack the sharding implies (docs/scenarios.md).
  for (const char* c : kPlanColumns)
    if (std::string_view(c) != "stack" || !row.at(c).empty()) root["plan"][c] = YAML::Load(row.at(c));
  for (const char* c : kMoePlanColumns)
    if (!row.optional(c).empty()) root["plan"][c] = YAML::Load(row.optional(c));
  const std::string extra_keys = row.optional("extra_keys");
  std::string_view extra = extra_keys;
  while (!extra.empty()) {
    const std::size_t end = std::min(extra.find(';'), extra.size());
    const std::string_view item = extra.substr(0, end);
    extra.remove_prefix(std::min(end + 1, extra.size()));
    const std::size_t eq = item.find('=');
    const std::size_t dot = item.find('.');
    if (eq == std::string_view::npos || dot == std::string_view::npos || dot > eq)
      throw ScenarioError({path, row.line, 0}, "extra_keys", std::string(item), "is not section.key=value");
    const std::string section(item.substr(0, dot));
    const std::string key(item.substr(dot + 1, eq - dot - 1));
    // `island.KEY` sets a key of the row's one island (e.g. an island override of a GPU field, hbm_gib).
    YAML::Node target = section == "island" ? root["cluster"]["islands"][0] : root[section];
    target[key] = YAML::Load(std::string(item.substr(eq + 1)));
  }
  root["goodput"]["enabled"] = false;  // published figures are per-step throughput, not wall-clock
  ScenarioDocument doc;
  doc.path = fmt::format("{}:{}", path, row.line);
  doc.root = YamlTree(root);
  return doc;
}

}  // namespace

std::string_view to_string(RowUse use) noexcept {
  switch (use) {
    case RowUse::calibrate: return "calibrate";
    case RowUse::holdout: return "holdout";
    case RowUse::reference: return "reference";
  }
  return "reference";
}

double measured_step_time_s(const std::string& metric, const std::string& convention, double value,
                            const model::Scenario& s) {
  const double batch = static_cast<double>(s.training.global_batch);
  const double tokens = batch * s.model.seq_len;
  const double gpus = static_cast<double>(s.cluster.total_gpus());
  if (metric == "seconds_per_iter") return value;
  if (metric == "tokens_per_s") return tokens / value;
  if (metric == "tokens_per_s_per_gpu") return tokens / (value * gpus);
  double flops = -1;
  if (convention == "sc21") {
    flops = model::megatron_sc21_flops_per_step(s.model, batch, s.plan.recompute == model::Recompute::full);
  } else if (convention == "megatron_core_2024") {
    flops = model::megatron_core_2024_flops_per_step(s.model, batch);
  } else if (convention == "korthikanti_model") {
    flops = model::megatron_sc21_flops_per_step(s.model, batch, false);  // eq. 7: the 72-form, no recompute
  } else if (convention == "megatron") {
    // Megatron-Core num_floating_point_operations as of core_v0.15 (causal, MoE active experts, MLA, MTP): the
    // model's own model FLOPs (docs/model.md §1.2, §15.3)
    flops = batch * model::count_flops(s.model, model::Recompute::none).model_per_sequence;
  } else if (convention == "palm") {
    // PaLM App. B: 6N + 12 L h s per token (non-causal attention)
    const double n = model::count_parameters(s.model).total;
    flops = tokens * (6.0 * n + 12.0 * s.model.layers * s.model.hidden * static_cast<double>(s.model.seq_len));
  }
  if (flops < 0) return -1;
  if (metric == "tflops_per_gpu") return flops / (value * 1e12 * gpus);
  if (metric == "mfu") return flops / (value / 100.0 * s.cluster.islands[0].gpu.peak_flops_per_s * gpus);
  return -1;
}

std::vector<ValidationRun> load_validation_runs(const std::string& csv_path, const Catalog& catalog) {
  results::CsvRecords table;
  try {
    table = results::read_csv(csv_path);
  } catch (const results::InputError& e) {
    throw ScenarioError({csv_path, 0, 0}, "", "", e.what());
  }
  if (table.records.empty()) throw ScenarioError({csv_path, 1, 1}, "", "", "has a header but no runs");
  std::vector<ValidationRun> runs;
  for (std::size_t k = 0; k < table.records.size(); ++k) {
    const CsvRow row{table.lines[k], &table.header, &table.records[k], csv_path};
    ValidationRun r;
    r.id = row.at("id");
    r.source_group = row.at("source_group");
    r.metric = row.at("metric");
    r.flop_convention = row.at("flop_convention");
    r.use = parse_use(row, csv_path);
    r.fully_specified = row.at("fully_specified") == "true";
    r.line = row.line;
    // Peak memory per GPU as the source publishes it, in GiB (PyTorch's counters and torchtitan report GiB).
    if (const std::string gib = row.optional("published_memory_gib"); !gib.empty()) {
      r.published_memory_bytes = parse_number(row, "published_memory_gib", csv_path) * 1024.0 * 1024.0 * 1024.0;
      if (r.published_memory_bytes <= 0)
        throw ScenarioError({csv_path, row.line, 0}, "published_memory_gib", gib, "must be positive");
    }
    r.published_value = parse_number(row, "value", csv_path);
    r.scenario = parse_scenario(row_document(row, csv_path), catalog);
    const auto gpu = catalog.gpus.find(row.at("gpu"));
    r.gpu_family = gpu != catalog.gpus.end() ? gpu->second.family : row.at("gpu");
    r.measured_step_s = measured_step_time_s(r.metric, r.flop_convention, r.published_value, r.scenario);
    r.convertible = r.measured_step_s > 0;
    runs.push_back(std::move(r));
  }
  return runs;
}

void predict(std::vector<ValidationRun>& runs) {
  for (ValidationRun& r : runs) {
    const model::Estimate e = model::evaluate(r.scenario);
    r.predicted_step_s = e.step_time_s;
    r.predicted_fits = e.feasible;
    r.predicted_memory_bytes = e.memory_per_gpu_bytes;
    r.memory_capacity_bytes = e.memory_capacity_bytes;
    r.memory = e.memory;
    // The allocator's peak reserved bytes: the tensors plus the allocator reserve (HBM less the usable capacity),
    // without the runtime overhead (CUDA context, NCCL buffers) that torch.cuda's counters do not include.
    const double hbm = r.scenario.cluster.islands[0].gpu.hbm_bytes;
    r.predicted_reserved_bytes =
        e.memory_per_gpu_bytes - e.memory.runtime_overhead_bytes + (hbm - e.memory_capacity_bytes);
    r.rejected = e.reject_reason == model::RejectReason::out_of_memory ? model::RejectReason::none : e.reject_reason;
  }
}

namespace {

// MAPE, worst error and the out-of-memory verdicts over `runs`, with `error` the signed relative error of a row.
template <class Error>
ErrorSummary summarize_errors(const std::vector<const ValidationRun*>& runs, Error error) {
  ErrorSummary s;
  double sum = 0;
  for (const ValidationRun* r : runs) {
    const double e = std::fabs(error(*r)) * 100.0;
    sum += e;
    s.worst = std::max(s.worst, e);
    if (!r->predicted_fits) ++s.oom_false;
    ++s.runs;
  }
  s.mape = s.runs > 0 ? sum / s.runs : 0.0;
  return s;
}

}  // namespace

ErrorSummary summarize_memory(const std::vector<const ValidationRun*>& runs) {
  return summarize_errors(runs, [](const ValidationRun& r) { return r.memory_error(); });
}

ErrorSummary summarize(const std::vector<const ValidationRun*>& runs) {
  return summarize_errors(runs, [](const ValidationRun& r) { return r.error(); });
}

}  // namespace shardmeter::cli
