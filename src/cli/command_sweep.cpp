// `shardmeter sweep SCENARIO --axis KEY=VALUES [--axis KEY=VALUES] [--set K=V]... [-o out.csv|out.h5]
// [--json] [--data-dir DIR]`: evaluate the scenario at every point of one or two axes, print a table and the
// analyses (island-size knee, compute/communication transition), optionally write every point to a file.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"
#include "src/cli/command_catalog.hpp"
#include "src/cli/command_line.hpp"
#include "src/text/clock_text.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/path_collisions.hpp"
#include "src/planning/search_section.hpp"
#include "src/sweep/sweep.hpp"
#include "src/sweep/sweep_output.hpp"
#include "src/sweep/sweep_plot.hpp"
#include "src/sweep/sweep_report.hpp"
#include "src/sweep/sweep_stream.hpp"

namespace shardmeter::cli {

int run_sweep(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("sweep"));
  line.add(SharedOption::set).add(SharedOption::data_dir).add(SharedOption::prices);
  line.texts("axis", "KEY=VALUES",
             "an axis: a dotted scenario key and its values, a YAML list or a range: --axis plan.tp=[1,2,4,8], "
             "--axis cluster.islands.0.gpus=64:8192:x2 (geometric), 8:64:+8 (arithmetic); once or twice (the first "
             "axis varies slowest)");
  line.output("FILE",
              "write every point to FILE: .csv, or .h5/.hdf5 (/front + /sweep; docs/islands.md); written atomically");
  line.text("plot", "FILE.svg",
            "draw throughput per GPU and cost per million tokens against the swept (last) axis, with the knee and the "
            "compute/communication transition marked, into FILE.svg (written atomically)");
  line.flag("replan", "at every point, search the scenario's search: space (without the swept keys) and keep the "
                     "best plan for its first objective, so the knee and transition describe the best layout");
  line.add(SharedOption::json);
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    out << "\nThe knee (the size with the most effective tokens/s per dollar, docs/search.md) is found when an axis is\n"
           "cluster.islands.N.gpus, .nodes or .count; the transition (where\n"
           "the exposed-communication share of the step crosses 50 %) along the last axis. With two axes both are\n"
           "computed per value of the other axis. Infeasible points are listed but left out of both analyses.\n";
    return 0;
  }
  const std::string path = line.single_positional("SCENARIO", "a YAML file");
  if (!line.has("axis")) throw line.usage("missing --axis KEY=VALUES");
  const std::string output = line.output();
  if (!output.empty()) sweep_format(output);  // reject a bad extension before any work
  const std::string plot = line.text("plot");
  if (!plot.empty() && std::filesystem::path(plot).extension() != ".svg")
    throw UsageError("shardmeter sweep: --plot " + plot + " must name a .svg file");

  std::vector<PathUse> inputs = catalog_inputs(line.data_dir(), line.has("prices") ? line.text("prices") : "");
  inputs.insert(inputs.begin(), PathUse{"SCENARIO", path});
  check_path_collisions("sweep", inputs, {{"-o", output}, {"--plot", plot}});

  const std::vector<Override> overrides = line.overrides();
  std::vector<std::string> override_texts;
  for (const Override& o : overrides) override_texts.push_back(o.text);
  std::vector<AxisSpec> axes;
  for (const std::string& text : line.texts("axis")) {
    try {
      axes.push_back(axis_from_text(text));
    } catch (const ScenarioError& e) {  // name the scenario the axis was meant for, as value errors do
      SourceLocation where = e.where();
      where.file = path + ": " + where.file;
      throw ScenarioError(where, e.key(), e.value(), e.problem());
    }
  }

  // A sweep larger than a Sweep holds (kMaxSweepPoints) is streamed (src/sweep/sweep_stream.hpp): its file, its
  // table and --json are written point by point and print what a held sweep prints. --plot and --replan, which need
  // every point at once, are refused before any work, with the size they would need.
  const bool streamed = sweep_point_count(axes) > kMaxSweepPoints;
  if (streamed) {
    if (line.flag("replan")) check_held_sweep_size(axes, "--replan");
    if (!plot.empty()) check_held_sweep_size(axes, "--plot");
  }
  const auto start = std::chrono::steady_clock::now();
  const Catalog catalog = load_command_catalog(line);
  const LoadedScenario loaded = load_scenario_with_search(path, overrides, catalog);
  if (streamed) {
    const search::Space space = sweep_space(loaded, catalog, axes);
    const StreamedSweep sweep = analyse_streamed_sweep(space, loaded.name, axes, !line.json());
    try {
      if (!output.empty() && sweep_format(output) == SweepFormat::hdf5) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        write_streamed_sweep_hdf5(sweep, space, output,
                                  SweepProvenance{loaded.doc.text, override_texts, utc_now_iso8601(), elapsed});
      } else if (!output.empty()) {
        write_streamed_sweep_csv(sweep, space, output);
      }
    } catch (const results::ResultsError& e) {
      throw UsageError(std::string("shardmeter sweep: ") + e.what());
    }
    if (line.json()) {
      write_streamed_sweep_json(sweep, space, out);
    } else {
      write_streamed_sweep_table(sweep, space, out);
      if (out && !output.empty()) out << "\nWrote " << output << "\n";
    }
    return 0;
  }
  const Sweep sweep = run_sweep(loaded, catalog, axes, line.flag("replan"));
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!output.empty()) {
    try {
      write_sweep(sweep, output, SweepProvenance{loaded.doc.text, override_texts, utc_now_iso8601(), elapsed});
    } catch (const results::ResultsError& e) {
      throw UsageError(std::string("shardmeter sweep: ") + e.what());
    }
  }
  if (!plot.empty()) {
    try {
      results::write_text_atomically(plot, sweep_plot_svg(sweep));
    } catch (const results::ResultsError& e) {
      throw UsageError(std::string("shardmeter sweep: ") + e.what());
    }
  }
  if (line.json())
    write_sweep_json(sweep, out);
  else
    out << format_sweep_table(sweep) << (output.empty() ? "" : "\nWrote " + output + "\n")
        << (plot.empty() ? "" : "Wrote " + plot + "\n");
  return 0;
}

}  // namespace shardmeter::cli
