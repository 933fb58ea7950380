// The extension module `shardmeter._shardmeter`: pybind11 glue around src/python/python_api.hpp. Its Python face,
// with the scenario and override conversions, is the package src/python/shardmeter/__init__.py (docs/python.md).
#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "results/errors.hpp"
#include "src/python/python_api.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/version.hpp"
#include "src/text/clock_text.hpp"

namespace py = pybind11;

namespace shardmeter::python {

namespace {

// The folder this module was loaded from (build/python/shardmeter, or <prefix>/lib/python3/dist-packages/shardmeter).
std::filesystem::path module_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&module_folder), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::absolute(info.dli_fname, ec);
  return ec ? std::filesystem::path() : path.parent_path();
}

std::string default_data_dir() { return cli::data_dir_of(module_folder(), SHARDMETER_DATA_FROM_PYTHONDIR); }

// Catalogs by data directory, read once per process. Called with the GIL held, which serialises it.
const cli::Catalog& catalog(const std::optional<std::string>& data_dir) {
  static std::map<std::string, std::unique_ptr<const cli::Catalog>> loaded;
  const std::string dir = data_dir.value_or(default_data_dir());
  auto it = loaded.find(dir);
  if (it == loaded.end()) it = loaded.emplace(dir, std::make_unique<const cli::Catalog>(cli::load_catalog(dir))).first;
  return *it->second;
}

std::vector<cli::Override> overrides(const std::vector<std::string>& texts) {
  std::vector<cli::Override> out;
  for (const std::string& text : texts) out.push_back(cli::parse_override(text));
  return out;
}

ScenarioSource source(std::string label, std::optional<std::string> text) {
  return ScenarioSource{std::move(label), std::move(text)};
}

// The search options a Python caller gave (None: the CLI's default, SearchJobOptions' initialisers).
cli::SearchJobOptions search_options(const std::vector<std::string>& set, const py::dict& given) {
  cli::SearchJobOptions o;
  o.overrides = overrides(set);
  o.created = cli::utc_now_iso8601();
  for (const auto& [key_handle, value] : given) {
    const std::string key = py::cast<std::string>(key_handle);
    if (key == "method") {
      const std::string text = py::cast<std::string>(value);
      const auto method = search::parse_method(text);
      if (!method) throw py::value_error("method " + text + " is not one of auto, exhaustive, anneal");
      o.method = *method;
    } else if (key == "threads") {
      o.threads = py::cast<int>(value);
      if (o.threads < 0) throw py::value_error("threads " + std::to_string(o.threads) + " is negative");
    } else if (key == "seed") {
      o.seed = py::cast<std::uint64_t>(value);
    } else if (key == "evaluations") {
      o.visit_budget = py::cast<std::uint64_t>(value);
      if (o.visit_budget == 0) throw py::value_error("evaluations must be at least 1");
    } else if (key == "time_limit") {
      o.time_limit_s = py::cast<double>(value);
      if (!(o.time_limit_s >= 0)) throw py::value_error("time_limit must be at least 0 seconds");
    } else if (key == "output") {
      o.output_h5 = py::cast<std::string>(value);
    } else if (key == "csv") {
      o.output_csv = py::cast<std::string>(value);
    } else if (key == "json") {
      o.output_json = py::cast<std::string>(value);
    } else if (key == "all") {
      o.write_all = py::cast<bool>(value);
    } else {
      throw py::type_error("search() got an unexpected option '" + key + "'");
    }
  }
  if (o.write_all && o.output_h5.empty()) throw py::value_error("all=True needs output= (it writes /all into the HDF5 file)");
  return o;
}

}  // namespace

}  // namespace shardmeter::python

PYBIND11_MODULE(_shardmeter, m) {
  using namespace shardmeter;
  using namespace shardmeter::python;
  m.doc() = "ShardMeter's C++ core; use the `shardmeter` package (docs/python.md).";
  m.attr("__version__") = cli::version();

  // Bad input carries the CLI's located message ("file:line:column: key = value problem").
  py::register_exception<cli::ScenarioError>(m, "ScenarioError", PyExc_ValueError);
  py::register_exception<cli::InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<results::ResultsError>(m, "ResultsError", PyExc_RuntimeError);
  py::register_exception<results::OutputError>(m, "OutputError", PyExc_OSError);

  m.def("data_dir", &default_data_dir,
        "The catalogs' folder: $SHARDMETER_DATA_DIR, else the installed share/shardmeter, else the source tree's.");
  m.def(
      "estimate_json",
      [](std::string label, std::optional<std::string> text, const std::vector<std::string>& set,
         const std::optional<std::string>& data_dir) {
        const cli::Catalog& c = catalog(data_dir);
        const std::vector<cli::Override> o = overrides(set);
        const py::gil_scoped_release release;
        return estimate_json(source(std::move(label), std::move(text)), o, c);
      },
      py::arg("label"), py::arg("text"), py::arg("set"), py::arg("data_dir"));
  m.def(
      "evaluate_many",
      [](std::string label, std::optional<std::string> text, const std::vector<std::vector<std::string>>& rows,
         int threads, const std::optional<std::string>& data_dir) {
        if (threads < 0) throw py::value_error("threads " + std::to_string(threads) + " is negative");
        const cli::Catalog& c = catalog(data_dir);
        std::vector<std::vector<cli::Override>> parsed;
        for (const std::vector<std::string>& row : rows) parsed.push_back(overrides(row));
        results::Table table;
        {
          const py::gil_scoped_release release;
          table = evaluate_many(source(std::move(label), std::move(text)), parsed, c, threads);
        }
        std::vector<std::vector<results::CellValue>> cells;
        cells.reserve(table.rows.size());
        for (const results::Row& row : table.rows) {
          std::vector<results::CellValue>& out = cells.emplace_back();
          for (const std::string& column : table.columns) out.push_back(row.at(column));
        }
        return py::make_tuple(table.columns, cells);
      },
      py::arg("label"), py::arg("text"), py::arg("rows"), py::arg("threads"), py::arg("data_dir"));
  m.def(
      "search_json",
      [](std::string label, std::optional<std::string> text, const std::vector<std::string>& set,
         const py::dict& options, const std::optional<std::string>& data_dir) {
        const cli::Catalog& c = catalog(data_dir);
        cli::SearchJobOptions o = search_options(set, options);
        const py::gil_scoped_release release;
        return search_json(source(std::move(label), std::move(text)), std::move(o), c);
      },
      py::arg("label"), py::arg("text"), py::arg("set"), py::arg("options"), py::arg("data_dir"));
}
