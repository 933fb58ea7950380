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
#include "results/front/row_decoder.hpp"
#include "results/files/hdf5_reader.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/path_collisions.hpp"
#include "src/planning/scenario_rebuild.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/word_lists.hpp"

namespace shardmeter::cli {

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
  std::string formats;
  for (const std::string_view f : results::export_format_names()) formats += (formats.empty() ? "" : ", ") + std::string(f);
  const std::string format_help = "required: " + formats;
  CommandLine line(*find_command("export"));
  line.text("pick", "WHICH",
            "cheapest, fastest, knee (docs/search.md: the knee), by the objectives the front was searched with, or a "
            "row number of the front (1 = its first row); rows that are not feasible are never exported",
            std::string("knee"));
  line.text("format", "FORMAT", format_help.c_str());
  line.output("FILE", "write here (atomically) instead of stdout");
  line.add(SharedOption::data_dir);
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    out << "\n--data-dir: the catalogs used to rebuild the plan's scenario from a front written before "
           "schema_version 3.\n";
    return 0;
  }
  const std::string front_path = line.single_positional("FRONT.h5");
  if (!line.has("format")) throw UsageError("shardmeter export: missing --format (" + formats + ")");
  const std::string format_name = line.text("format");
  const auto format = results::parse_export_format(format_name);
  if (!format) {
    std::vector<std::string> names(results::export_format_names().begin(), results::export_format_names().end());
    const std::string near = closest_match(format_name, names);
    throw UsageError("shardmeter export: --format " + format_name + " is not a format" +
                     (near.empty() ? "" : " (did you mean " + near + "?)") + "; formats: " + formats);
  }
  const std::string pick = line.text("pick");
  if (line.has("output")) {
    std::vector<PathUse> inputs = catalog_inputs(line.data_dir(), "");
    inputs.insert(inputs.begin(), PathUse{"FRONT.h5", front_path});
    check_path_collisions("export", inputs, {{"-o", line.output()}});
  }

  try {
    const results::ResultFile file = results::read_front(front_path);
    const std::size_t row = pick_row(file, pick);
    // Files before schema_version 3 lack the model dimensions, overlap flags and DiLoCo fragments, and no column
    // holds an MoE model's router, capacity factor, MTP depth, MLA ranks or plan.moe_recompute, nor any model's
    // YaRN factor or sliding window: rebuild the row's scenario from the file's text and axis labels for them.
    std::optional<model::Scenario> rebuilt;
    {
      std::string why_not;
      try {
        const Catalog catalog = load_catalog(line.data_dir());
        rebuilt = rebuild_scenario(file.info, file.front.rows[row], catalog, why_not);
      } catch (const ScenarioError& e) {
        why_not = e.what();
      }
      if (!rebuilt) std::cerr << "shardmeter export: note: scenario not rebuilt (" << why_not << ")\n";
    }
    std::string disagrees;
    results::PlanRecord record = results::decode_row(file.front.rows[row], row, rebuilt ? &*rebuilt : nullptr, &disagrees);
    if (rebuilt && !record.rebuilt) std::cerr << "shardmeter export: note: scenario not rebuilt (" << disagrees << ")\n";
    const results::Deployment plan = results::make_deployment(std::move(record));
    const results::ExportSource source{&file.info, &file.front.rows[row], front_path, pick};
    const results::Exported exported = results::export_plan(*format, plan, source);
    if (line.has("output")) results::write_text_atomically(line.output(), exported.text);
    else out << exported.text;
    for (const std::string& note : exported.notes) std::cerr << "shardmeter export: note: " << note << "\n";
  } catch (const results::ResultsError& e) {
    throw UsageError(std::string("shardmeter export: ") + e.what());
  }
  return 0;
}

}  // namespace shardmeter::cli
