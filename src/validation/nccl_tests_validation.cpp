#include "src/validation/nccl_tests_validation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/parallel/layout.hpp"
#include "model/comm/nccl_algorithm.hpp"
#include "model/comm/network_profile.hpp"
#include "results/files/csv.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/validation/table_cells.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

using Row = TableCells;

m::NetworkOp operation(const Row& r) {
  const std::string& op = r.at("operation");
  if (op == "all_reduce") return m::NetworkOp::all_reduce;
  if (op == "all_gather") return m::NetworkOp::all_gather;
  if (op == "reduce_scatter") return m::NetworkOp::reduce_scatter;
  throw ScenarioError({r.path, r.line, 0}, "operation", op, "is not all_reduce, all_gather or reduce_scatter");
}

// The links of a catalog GPU's island of `nodes` nodes (node_network_gbps from the row when given), as an estimate
// would build them (model::make_layout).
m::GroupLinks links_of(const Row& r, int nodes, const Catalog& catalog) {
  std::string island = "{gpu: " + r.at("gpu") + ", nodes: " + std::to_string(nodes);
  if (!r.at("node_network_gbps").empty()) island += ", node_network_gbps: " + r.at("node_network_gbps");
  island += "}";
  const std::string text = "name: nccl-tests\nmodel: {preset: llama3-8b}\ntraining: {global_batch: 64}\n"
                           "cluster:\n  islands:\n    - " + island + "\nplan: {}\n";
  try {
    const m::Scenario s = parse_scenario(scenario_document_from_text(r.path, text), catalog);
    return m::make_layout(s.cluster.islands[0], s.plan).links;
  } catch (const ScenarioError& e) {
    throw ScenarioError({r.path, r.line, 0}, "gpu", r.at("gpu"), std::string("does not make an island: ") + e.what());
  }
}

}  // namespace

std::vector<NcclTestRow> score_nccl_tests(const std::string& csv_path, const Catalog& catalog) {
  results::CsvRecords table;
  try {
    table = results::read_csv(csv_path);
  } catch (const std::exception& e) {
    throw ScenarioError({csv_path, 0, 0}, "", "", e.what());
  }
  std::vector<NcclTestRow> rows;
  for (std::size_t k = 0; k < table.records.size(); ++k) {
    const Row r{table.header, table.records[k], csv_path, table.lines[k]};
    const int per_node = static_cast<int>(r.positive("gpus_per_node"));
    const int nodes = static_cast<int>(r.positive("nodes"));
    const double bytes = r.positive("bytes");
    const m::NetworkOp op = operation(r);
    const m::CollectiveCost cost =
        m::nccl_collective(op, bytes, m::GroupPlacement{per_node, nodes}, links_of(r, nodes, catalog));
    NcclTestRow row;
    row.id = r.at("id");
    row.group = r.at("group");
    row.line = r.line;
    row.published_gbs = r.positive("busbw_gbs");
    // nccl-tests' busbw = bytes x factor / time (doc/PERFORMANCE.md), in GB/s.
    row.predicted_gbs = cost.time_s > 0 ? bytes * m::busbw_factor(op, per_node * nodes) / cost.time_s / 1e9 : 0.0;
    rows.push_back(row);
  }
  return rows;
}

std::vector<NcclTestGroup> summarize_nccl_test_groups(const std::vector<NcclTestRow>& rows) {
  std::vector<NcclTestGroup> groups;
  for (const NcclTestRow& r : rows) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const NcclTestGroup& g) { return g.name == r.group; });
    NcclTestGroup& g = it != groups.end() ? *it : groups.emplace_back(NcclTestGroup{r.group});
    ++g.rows;
    g.mape += std::fabs(r.error_pct());
    g.worst = std::max(g.worst, std::fabs(r.error_pct()));
  }
  for (NcclTestGroup& g : groups) g.mape /= g.rows;
  return groups;
}

std::string format_nccl_test_report(const std::vector<NcclTestRow>& rows) {
  std::string out = "nccl-tests bus bandwidth (scenarios/validation/nccl_tests_runs.csv): the collective model against "
                    "published results, scored apart, fitted on nothing\n";
  double sum = 0;
  for (const NcclTestGroup& g : summarize_nccl_test_groups(rows)) {
    out += fmt::format("  {:<30}{:>3} rows  MAPE {:5.1f}%  worst {:5.1f}%\n", g.name, g.rows, g.mape, g.worst);
    sum += g.mape * g.rows;
  }
  if (!rows.empty())
    out += fmt::format("  bus-bandwidth MAPE {:.1f}% over {} rows\n", sum / static_cast<double>(rows.size()),
                       rows.size());
  return out;
}

std::string nccl_test_json_text(const std::vector<NcclTestRow>& rows) {
  nlohmann::json j;
  j["groups"] = nlohmann::json::array();
  double sum = 0;
  for (const NcclTestGroup& g : summarize_nccl_test_groups(rows)) {
    j["groups"].push_back({{"name", g.name}, {"rows", g.rows}, {"mape_pct", g.mape}, {"worst_pct", g.worst}});
    sum += g.mape * g.rows;
  }
  j["mape_pct"] = rows.empty() ? 0.0 : sum / static_cast<double>(rows.size());
  j["rows"] = nlohmann::json::array();
  for (const NcclTestRow& r : rows)
    j["rows"].push_back({{"id", r.id}, {"group", r.group}, {"line", r.line}, {"published_gbs", r.published_gbs},
                         {"predicted_gbs", r.predicted_gbs}, {"error_pct", r.error_pct()}});
  return j.dump();
}

}  // namespace shardmeter::cli
