#include "results/files/json.hpp"

#include <cmath>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "results/markup.hpp"
#include "results/files/atomic_file.hpp"
#include "model/spec/metrics.hpp"
#include "results/errors.hpp"
#include "results/front/objective.hpp"
#include "results/files/hdf5_names.hpp"

namespace shardmeter::results {

namespace n = h5names;
using ordered = nlohmann::ordered_json;

namespace {

ordered to_json(const RunInfo& info) {
  ordered run;
  run[n::kScenarioName] = info.scenario_name;
  run[n::kVersion] = info.version;
  run[n::kMethod] = info.method;
  run[n::kSeed] = info.seed;
  run[n::kThreads] = info.threads;
  run[n::kRanks] = info.ranks;
  run[n::kSpaceSize] = info.space_size;
  run[n::kVisited] = info.visited;
  if (info.estimated) run[n::kEstimated] = *info.estimated;
  run[n::kFeasible] = info.feasible;
  ordered rejected = ordered::object();
  for (const auto& [reason, count] : info.rejected) rejected[reason] = count;
  run["rejected"] = rejected;
  run[n::kElapsed] = info.elapsed_s;
  run[n::kComplete] = info.complete;
  ordered objectives = ordered::array();
  for (const model::Objective& o : info.objectives)
    objectives.push_back(ordered{{"column", std::string(o.name())}, {"direction", std::string(to_string(o.direction))}});
  run[n::kObjectives] = objectives;
  run[n::kAxes] = info.axes;
  run[n::kCreated] = info.created;
  if (info.uncalibrated_gpus) run[n::kUncalibratedGpus] = *info.uncalibrated_gpus;
  if (info.uncalibrated_gpu_stacks) run[n::kUncalibratedGpuStacks] = *info.uncalibrated_gpu_stacks;
  if (!info.stack_source.empty()) run[n::kStackSource] = info.stack_source;
  if (info.counts_estimated) run[n::kCountsEstimated] = true;
  run[n::kScenario] = info.scenario_text;
  return run;
}

// Throws ResultsError on a missing or mistyped key. Schema version 1 called `visited` `evaluated`.
RunInfo run_info_from_json(const nlohmann::json& run, std::int64_t schema_version) {
  try {
    RunInfo info;
    info.scenario_name = run.at(n::kScenarioName).get<std::string>();
    info.version = run.at(n::kVersion).get<std::string>();
    info.method = run.at(n::kMethod).get<std::string>();
    info.seed = run.at(n::kSeed).get<std::uint64_t>();
    info.threads = run.at(n::kThreads).get<std::int64_t>();
    if (run.contains(n::kRanks)) info.ranks = run.at(n::kRanks).get<std::int64_t>();
    info.space_size = run.at(n::kSpaceSize).get<std::uint64_t>();
    info.visited = run.at(schema_version == 1 ? n::kVisitedV1 : n::kVisited).get<std::uint64_t>();
    if (run.contains(n::kEstimated)) info.estimated = run.at(n::kEstimated).get<std::uint64_t>();
    info.feasible = run.at(n::kFeasible).get<std::uint64_t>();
    for (const auto& [reason, count] : run.at("rejected").items()) info.rejected[reason] = count.get<std::uint64_t>();
    info.elapsed_s = run.at(n::kElapsed).get<double>();
    info.complete = run.at(n::kComplete).get<bool>();
    for (const auto& o : run.at(n::kObjectives)) {
      const auto d = parse_direction(o.at("direction").get<std::string>());
      if (!d) throw ResultsError("objective direction must be \"min\" or \"max\"");
      const std::string column = o.at("column").get<std::string>();
      const model::Metric* metric = model::find_metric(column);
      if (metric == nullptr) throw ResultsError(fmt::format("objective \"{}\" is not a metric", column));
      info.objectives.push_back(model::Objective{metric, *d});
    }
    info.axes = run.at(n::kAxes).get<std::vector<std::string>>();
    info.created = run.at(n::kCreated).get<std::string>();
    if (run.contains(n::kUncalibratedGpus))
      info.uncalibrated_gpus = run.at(n::kUncalibratedGpus).get<std::vector<std::string>>();
    if (run.contains(n::kUncalibratedGpuStacks))
      info.uncalibrated_gpu_stacks = run.at(n::kUncalibratedGpuStacks).get<std::vector<std::string>>();
    if (run.contains(n::kStackSource)) info.stack_source = run.at(n::kStackSource).get<std::string>();
    if (run.contains(n::kCountsEstimated)) info.counts_estimated = run.at(n::kCountsEstimated).get<bool>();
    info.scenario_text = run.at(n::kScenario).get<std::string>();
    return info;
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(std::string("run info: ") + e.what());
  }
}

}  // namespace

std::string to_json_text(const RunInfo& info, const Table& front) {
  ordered doc;
  doc["format"] = n::kFormat;
  doc["schema_version"] = n::kSchemaVersion;
  doc["run"] = to_json(info);
  doc["columns"] = front.columns;
  if (!front.units.empty()) {
    ordered units = ordered::object();
    for (std::size_t i = 0; i < front.columns.size() && i < front.units.size(); ++i) units[front.columns[i]] = front.units[i];
    doc[n::kUnits] = std::move(units);
  }
  ordered rows = ordered::array();
  for (const Row& row : front.rows) {
    ordered o = ordered::object();
    for (const std::string& c : front.columns) {
      const auto it = row.find(c);
      if (it == row.end()) continue;
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, double>) {
              if (std::isfinite(v)) o[c] = v;
              else o[c] = nullptr;  // JSON has no NaN or infinity
            } else {
              o[c] = v;
            }
          },
          it->second);
    }
    rows.push_back(std::move(o));
  }
  doc["front"] = std::move(rows);
  return json_text(doc);
}

void write_json(const std::filesystem::path& path, const RunInfo& info, const Table& front) {
  write_text_atomically(path, to_json_text(info, front));
}

ResultFile read_json(const std::filesystem::path& path) {
  const std::string p = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(p, InputProblem::missing, "cannot open");
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(p, InputProblem::malformed, e.what());
  }
  if (!doc.is_object() || doc.value("format", std::string()) != n::kFormat)
    throw InputError(p, InputProblem::not_shardmeter, fmt::format("no \"format\": \"{}\"", n::kFormat));
  const std::int64_t version = doc.value("schema_version", std::int64_t{0});
  if (version < n::kOldestSchemaVersion || version > n::kSchemaVersion)
    throw InputError(p, InputProblem::wrong_schema,
                     fmt::format("schema_version is not {} to {}", n::kOldestSchemaVersion, n::kSchemaVersion));
  ResultFile out;
  try {
    out.info = run_info_from_json(nlohmann::json(doc.at("run")), version);
    out.front.columns = doc.at("columns").get<std::vector<std::string>>();
    if (doc.contains(n::kUnits))
      for (const std::string& c : out.front.columns) out.front.units.push_back(doc.at(n::kUnits).value(c, std::string()));
    for (const auto& o : doc.at("front")) {
      Row row;
      for (const auto& [key, v] : o.items()) {
        if (v.is_string()) row.emplace(key, CellValue{v.get<std::string>()});
        else if (v.is_boolean()) row.emplace(key, CellValue{v.get<bool>()});
        else if (v.is_number_integer()) row.emplace(key, CellValue{v.get<std::int64_t>()});
        else if (v.is_number()) row.emplace(key, CellValue{v.get<double>()});
        else if (v.is_null()) row.emplace(key, CellValue{std::numeric_limits<double>::quiet_NaN()});
        else throw ResultsError(fmt::format("front value of `{}` is not a number, a boolean or a string", key));
      }
      out.front.rows.push_back(std::move(row));
    }
  } catch (const ResultsError& e) {
    throw InputError(p, InputProblem::wrong_schema, e.what());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(p, InputProblem::wrong_schema, e.what());
  }
  return out;
}

}  // namespace shardmeter::results
