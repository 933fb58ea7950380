#include "src/planning/scenario_rebuild.hpp"
#include "model/spec/enum_names.hpp"

#include <fmt/format.h>

#include "results/columns.hpp"
#include "results/errors.hpp"
#include "results/files/row_layout.hpp"
#include "src/scenario/scenario_check.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace shardmeter::cli {

std::optional<model::Scenario> rebuild_scenario(const results::RunInfo& info, const results::Row& row,
                                                const Catalog& catalog, std::string& why_not) {
  try {
    ScenarioDocument doc = scenario_document_from_text("scenario attribute of the front file", info.scenario_text);
    for (const std::string& axis : info.axes) {
      const std::string& label = results::text(row, results::axis_column_name(axis));
      apply_override(doc, Override{axis, label, axis + "=" + label});
    }
    const model::Scenario s = parse_scenario(doc, catalog);
    check_scenario(s, doc);
    // The columns are the truth the search wrote; a rebuilt plan that disagrees (catalog or loader changed since)
    // is not used.
    const bool same = s.plan.tp == results::integer(row, "tp") && s.plan.pp == results::integer(row, "pp") &&
                      s.plan.cp == results::integer(row, "cp") &&
                      s.plan.interleave == results::integer(row, "interleave") &&
                      s.training.micro_batch == results::integer(row, "micro_batch") &&
                      s.training.global_batch == results::integer(row, "global_batch") &&
                      s.cluster.total_gpus() == results::integer(row, "total_gpus") &&
                      model::enum_name(s.plan.sharding) == results::text(row, "sharding") &&
                      model::enum_name(s.plan.sync) == results::text(row, "sync") &&
                      (row.count("ep") == 0 || (s.plan.ep == results::integer(row, "ep") &&
                                                s.plan.etp == results::integer(row, "etp")));
    if (!same) {
      why_not = "the rebuilt scenario's plan differs from the row's columns";
      return std::nullopt;
    }
    return s;
  } catch (const ScenarioError& e) {
    why_not = e.what();
  } catch (const results::ResultsError& e) {
    why_not = e.what();
  }
  return std::nullopt;
}

}  // namespace shardmeter::cli
