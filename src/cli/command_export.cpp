// `shardmeter export FRONT.h5 [--pick cheapest|fastest|knee|N] --format FORMAT [-o FILE]`: one plan of a front as a
// deployment artefact (results/export/export_formats.hpp). A format that cannot express the plan is an error (status 2)
// and writes nothing.
#include <charconv>
#include <iostream>
#include <ostream>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"
#include "results/export/export_formats.hpp"
#include "results/front/front_picks.hpp"
#include "results/files/hdf5_reader.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/commands.hpp"
#include "src/planning/scenario_rebuild.hpp"
#include "src/scenario/version.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

namespace {

// The row --pick names: a row number (from 1, as every output numbers them) or cheapest / fastest / knee, by the
// objectives the front was searched with. Rows that are not feasible are never chosen: asked for one by number,
// this says why and exits 2.
std::size_t pick_row(const results::ResultFile& file, const std::string& pick) {
  const results::Table& front = file.front;
  if (front.rows.empty()) throw UsageError("shardmeter export: the front is empty: there is no plan to export");
  const results::PickAxes axes = results::pick_axes(file.info.objectives);
  std::size_t number = 0;
  const char* end = pick.data() + pick.size();
  if (const auto [ptr, ec] = std::from_chars(pick.data(), end, number); ec == std::errc() && ptr == end) {
    if (number < 1 || number > front.rows.size())
      throw UsageError("shardmeter export: --pick " + pick + " is not a row of the front (rows 1 to " +
                       std::to_string(front.rows.size()) + ")");
    const std::size_t row = number - 1;
    if (const auto why = results::unpickable(front.rows[row], axes))
      throw UsageError("shardmeter export: --pick " + pick + ": row " + pick + " cannot be deployed: " + *why);
    return row;
  }
  const auto picks = results::pick_front(front.rows, axes);
  const auto chosen = picks ? results::pick_by_name(*picks, pick) : std::nullopt;
  if (!chosen)
    throw UsageError("shardmeter export: --pick " + pick + " is not cheapest, fastest, knee or a row number" +
                     (picks ? "" : " (and no row of the file is feasible with a finite cost and speed)"));
  return *chosen;
}

}  // namespace

int run_export(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("export");
  std::string formats;
  for (const std::string_view f : results::export_format_names()) formats += (formats.empty() ? "" : ", ") + std::string(f);
  po::options_description options("Options");
  options.add_options()
      ("pick", po::value<std::string>()->default_value("knee")->value_name("WHICH"),
       "cheapest, fastest, knee (docs/search.md: the knee), by the objectives the front was searched with, or a row "
       "number of the front (1 = its first row); rows that are not feasible are never exported")
      ("format", po::value<std::string>()->value_name("FORMAT"), ("required: " + formats).c_str())
      ("output,o", po::value<std::string>()->value_name("FILE"), "write here (atomically) instead of stdout")
      ("data-dir", po::value<std::string>()->value_name("DIR"),
       "catalogs and presets used to rebuild the plan's scenario (default: $SHARDMETER_DATA_DIR or scenarios/)")
      ("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "front");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    return 0;
  }
  const std::string front_path = single_positional(command, vm, "front", "FRONT.h5");
  if (!vm.count("format")) throw UsageError("shardmeter export: missing --format (" + formats + ")");
  const std::string format_name = vm["format"].as<std::string>();
  const auto format = results::parse_export_format(format_name);
  if (!format) {
    std::vector<std::string> names(results::export_format_names().begin(), results::export_format_names().end());
    const std::string near = closest_match(format_name, names);
    throw UsageError("shardmeter export: --format " + format_name + " is not a format" +
                     (near.empty() ? "" : " (did you mean " + near + "?)") + "; formats: " + formats);
  }
  const std::string pick = vm["pick"].as<std::string>();

  try {
    const results::ResultFile file = results::read_front(front_path);
    const std::size_t row = pick_row(file, pick);
    // Files before schema_version 3 lack the model dimensions, overlap flags and DiLoCo fragments: rebuild the
    // row's scenario from the file's text and axis labels for them.
    std::optional<model::Scenario> rebuilt;
    if (file.front.rows[row].count("model_heads") == 0) {
      std::string why_not;
      try {
        const Catalog catalog = load_catalog(vm.count("data-dir") ? vm["data-dir"].as<std::string>() : data_dir());
        rebuilt = rebuild_scenario(file.info, file.front.rows[row], catalog, why_not);
      } catch (const ScenarioError& e) {
        why_not = e.what();
      }
      if (!rebuilt) std::cerr << "shardmeter export: note: scenario not rebuilt (" << why_not << ")\n";
    }
    const results::DeployPlan plan =
        results::make_deploy_plan(file.front.rows[row], row, rebuilt ? &*rebuilt : nullptr);
    const results::ExportSource source{&file.info, &file.front.rows[row], front_path, pick};
    const results::Exported exported = results::export_plan(*format, plan, source);
    if (vm.count("output")) results::write_text_atomically(vm["output"].as<std::string>(), exported.text);
    else out << exported.text;
    for (const std::string& note : exported.notes) std::cerr << "shardmeter export: note: " << note << "\n";
  } catch (const results::ResultsError& e) {
    throw UsageError(std::string("shardmeter export: ") + e.what());
  }
  return 0;
}

}  // namespace shardmeter::cli
