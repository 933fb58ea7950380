#include "src/planning/scenario_rebuild.hpp"

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
    return s;
  } catch (const ScenarioError& e) {
    why_not = e.what();
  } catch (const results::ResultsError& e) {
    why_not = e.what();
  }
  return std::nullopt;
}

}  // namespace shardmeter::cli
