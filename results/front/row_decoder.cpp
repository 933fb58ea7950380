#include "results/front/row_decoder.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "results/columns.hpp"
#include "results/errors.hpp"

namespace shardmeter::results {

namespace {

// Columns added after the first files were written whose absence means a value every older file's plans had:
// the MoE columns (files before them hold dense plans), the pipeline split (balanced: 0 = the model's default)
// and the stack (PlanRecord::stack_known says whether it was known). The model::Scenario default is that value.
constexpr std::array<std::string_view, 16> kDefaultWhenAbsent = {
    "model_experts",   "model_top_k",           "model_shared_experts",  "model_expert_ffn_hidden",
    "model_shared_expert_ffn_hidden", "model_dense_layers", "model_moe_every", "ep", "etp", "ep_dispatcher",
    "ep_overlap",      "pp_first_stage_layers", "pp_last_stage_layers",  "pp_embedding_layers",
    "pp_head_layers",  "stack"};

// Estimate columns a deployment cannot do without (the degrees, each island's replicas and batch share); the
// others read as 0 when a file predates them.
bool required_estimate_column(std::string_view column) {
  for (std::string_view c : {"data_parallel", "dp_shard", "dp_replicate", "microbatches"})
    if (column == c) return true;
  return column.starts_with("island") && (column.ends_with("_batch_share") || column.ends_with("_data_parallel"));
}

bool defaults_when_absent(std::string_view column) {
  return std::find(kDefaultWhenAbsent.begin(), kDefaultWhenAbsent.end(), column) != kDefaultWhenAbsent.end();
}

int island_entries_of(const Row& row) {
  if (row.count("island_entries") > 0) return static_cast<int>(std::clamp<std::int64_t>(integer(row, "island_entries"), 0, model::kMaxIslands));
  int n = 0;
  while (n < model::kMaxIslands && row.count(fmt::format("island{}_gpu", n)) > 0) ++n;
  return n;
}

template <class Column, class Target>
void set_column(const Column& c, const CellValue& v, Target& target) {
  try {
    c.set(target, v, c.island);
  } catch (const ResultsError& e) {
    throw ResultsError(fmt::format("column `{}` {}", c.name, e.what()));
  }
}

// The scenario columns over `base`; absent columns that nothing supplies go to `missing` (none when `base` is a
// rebuilt scenario, which supplies every field).
model::Scenario scenario_of(const Row& row, int entries, const model::Scenario& base, bool base_is_rebuilt,
                            std::vector<std::string>& missing) {
  model::Scenario s = base;
  s.cluster.island_entries = entries;
  std::vector<ScenarioColumn> columns = scenario_columns(entries);
  for (ScenarioColumn& c : scenario_detail_columns(entries)) columns.push_back(std::move(c));
  for (const ScenarioColumn& c : columns) {
    if (c.set == nullptr) continue;
    const auto it = row.find(c.name);
    // Over a rebuilt scenario, a cell that already reads back as the field leaves the field alone (a converted
    // field such as node_network_gbps would otherwise lose its last bits).
    if (it != row.end()) {
      if (!base_is_rebuilt || !(c.get(s, c.island) == it->second)) set_column(c, it->second, s);
    } else if (!base_is_rebuilt && !defaults_when_absent(c.name)) missing.push_back(c.name);
  }
  return s;
}

// Why the rebuilt scenario is not the row's ("" when it is): the columns are the truth the search wrote; a rebuilt
// plan or model that disagrees (catalog or loader changed since) is not used.
std::string disagreement(const model::Scenario& columns, const model::Scenario& rebuilt) {
  const model::PlanSpec &a = columns.plan, &b = rebuilt.plan;
  const bool plan = a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.interleave == b.interleave &&
                    a.sharding == b.sharding && a.sync == b.sync && a.ep == b.ep && a.etp == b.etp &&
                    columns.training.micro_batch == rebuilt.training.micro_batch &&
                    columns.training.global_batch == rebuilt.training.global_batch &&
                    columns.cluster.total_gpus() == rebuilt.cluster.total_gpus();
  if (!plan) return "the rebuilt scenario's plan differs from the row's columns";
  const bool model = columns.model.layers == rebuilt.model.layers && columns.model.hidden == rebuilt.model.hidden &&
                     columns.model.moe.experts == rebuilt.model.moe.experts;
  if (!model) return "the rebuilt scenario's model differs from the row's columns";
  return "";
}

}  // namespace

void PlanRecord::require_complete() const {
  if (!missing.empty()) throw ResultsError(fmt::format("no column `{}` in the row", missing.front()));
}

PlanRecord decode_row(const Row& row, std::size_t row_index, const model::Scenario* rebuilt, std::string* why_not) {
  PlanRecord r;
  r.row = row_index;
  r.index = static_cast<std::uint64_t>(integer(row, "index"));
  const int entries = island_entries_of(row);
  r.scenario = scenario_of(row, entries, model::Scenario{}, false, r.missing);
  if (rebuilt != nullptr) {
    const std::string why = disagreement(r.scenario, *rebuilt);
    if (why.empty()) {
      std::vector<std::string> none;
      r.scenario = scenario_of(row, entries, *rebuilt, true, none);
      r.rebuilt = true;
      r.missing.clear();
    } else if (why_not != nullptr) {
      *why_not = why;
    }
  }
  r.stack_in_row = row.count("stack") > 0;
  r.stack_known = r.rebuilt || r.stack_in_row;

  r.estimate.island_entries = entries;
  for (const EstimateColumn& c : estimate_detail_columns(entries)) {
    const auto it = row.find(c.name);
    if (it != row.end()) set_column(c, it->second, r.estimate);
    else if (required_estimate_column(c.name)) r.missing.push_back(c.name);
  }
  r.estimate.feasible = false;
  for (std::size_t k = 0; k < model::kMetrics.size(); ++k) {
    const model::Metric& m = model::kMetrics[k];
    const auto it = row.find(m.name);
    double v = std::numeric_limits<double>::quiet_NaN();
    if (it != row.end()) {
      try {
        v = cell_number(it->second);
      } catch (const ResultsError& e) {
        throw ResultsError(fmt::format("column `{}` {}", m.name, e.what()));
      }
    } else if (m.name == "token_efficiency" || m.name == "batch_efficiency") {
      v = 1;   // files before the column predate DiLoCo's and the batch's extra tokens
    } else if (m.name == "warning_bits") {
      v = 0;   // files before the column claim no warning
    }
    r.metrics[k] = v;
  }
  r.estimate.feasible = r.metric(model::metric("feasible")) != 0;
  return r;
}

CellValue column_value(const PlanRecord& r, std::string_view column) {
  const int entries = r.scenario.cluster.island_entries;
  std::vector<ScenarioColumn> scenario = scenario_columns(entries);
  for (ScenarioColumn& c : scenario_detail_columns(entries)) scenario.push_back(std::move(c));
  for (const ScenarioColumn& c : scenario)
    if (c.name == column) return c.get(r.scenario, c.island);
  for (const EstimateColumn& c : estimate_detail_columns(entries))
    if (c.name == column) return c.get(r.estimate, std::max(c.island, 0));
  if (const model::Metric* m = model::find_metric(column)) return CellValue{r.metric(*m)};
  throw ResultsError(fmt::format("no column `{}` in the row", column));
}

std::vector<PlanRecord> decode_rows(const Table& table) {
  std::vector<PlanRecord> out;
  out.reserve(table.rows.size());
  for (std::size_t i = 0; i < table.rows.size(); ++i) out.push_back(decode_row(table.rows[i], i));
  return out;
}

}  // namespace shardmeter::results
