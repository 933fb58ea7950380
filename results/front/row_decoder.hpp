#pragma once
// The one row decoder: a row of a result file (results/front/row.hpp, as every reader returns it) read once into
// typed values, through the one column table (results/columns.hpp): the plan as a model::Scenario, the estimate's
// detail columns as a model::Estimate, the metrics by model/spec/metrics.hpp's table. Reports and exports read
// these, never the row's strings; a new enum value reaches them as an enum, so a `switch` without it does not
// compile cleanly (-Wswitch).
//
// Files of every schema version are read here and nowhere else: columns a file predates take the scenario rebuilt
// from the file's text (results/README.md "Reading a row back"), or a default that holds for every file written
// before the column existed (dense MoE columns, the balanced pipeline split, no warnings, token efficiency 1), or
// are listed in PlanRecord::missing for the consumer that needs them to refuse.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/spec/estimate.hpp"
#include "model/spec/metrics.hpp"
#include "model/spec/scenario.hpp"
#include "results/front/row.hpp"

namespace shardmeter::results {

struct PlanRecord {
  std::size_t row = 0;                 // row index in its file (row_number(row) is what outputs show)
  std::uint64_t index = 0;             // the candidate's index in the plan space (column index)
  model::Scenario scenario;            // every scenario column; the keys no column holds from the rebuilt scenario
  model::Estimate estimate;            // the estimate's detail columns (bottleneck, reject reason, degrees, islands)
  std::array<double, model::kMetrics.size()> metrics{};   // model::metrics() order; NaN where the file lacks one
  // The keys no column holds (MoE router, MLA ranks, RoPE base, warm-up, plan.moe_recompute, ...) came from the
  // row's scenario rebuilt from the file's text; false: they are model::Scenario's defaults and not to be written.
  bool rebuilt = false;
  bool stack_known = false;            // the row has a stack column, or the scenario was rebuilt
  bool stack_in_row = false;           // the row has a stack column (files since the stack was stated everywhere)
  std::vector<std::string> missing;    // columns the file lacks that nothing supplied (old files, no rebuild)

  double metric(const model::Metric& m) const { return metrics[static_cast<std::size_t>(&m - model::kMetrics.data())]; }
  bool diloco() const { return scenario.plan.sync == model::SyncMode::diloco; }
  bool moe() const { return scenario.model.moe.experts > 0; }
  // Throws ResultsError naming the first missing column, for consumers that need every plan column (export).
  void require_complete() const;
};

// Decodes row `row_index`. `rebuilt`: the row's scenario rebuilt from the file's `scenario` text and axis labels
// (src/cli does it: results/ cannot parse scenarios); used only when its plan and model agree with the row's
// columns (else `why_not` says why). Throws ResultsError naming the column for a cell of the wrong type or an
// enum spelling this version does not know.
PlanRecord decode_row(const Row& row, std::size_t row_index, const model::Scenario* rebuilt = nullptr,
                      std::string* why_not = nullptr);
// A column of the row read back through the column table's getter (scenario and estimate columns, metrics);
// throws ResultsError for a name that is no such column.
CellValue column_value(const PlanRecord& record, std::string_view column);
// Every row of a table, in order (no rebuilt scenarios).
std::vector<PlanRecord> decode_rows(const Table& table);

}  // namespace shardmeter::results
