// `shardmeter estimate SCENARIO [--set KEY=VALUE]... [--json] [--batch FILE] [--data-dir DIR]`: load one scenario,
// evaluate it, print a table (or one JSON object). An infeasible plan (e.g. out of memory) is a result, not an error.
// With --batch, one estimate per line of FILE, printed as JSON lines: many estimates for one process start and one
// catalog read.
#include <fstream>
#include <iostream>
#include <ostream>

#include "model/job/evaluate.hpp"
#include "results/files/estimate_json.hpp"
#include "src/cli/command_catalog.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/planning/search_section.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/scenario/stack_source.hpp"
#include "src/text/estimate_table.hpp"

namespace shardmeter::cli {

namespace {

// One line of a batch: its scenario (the command line's when it names none) and the overrides after the command
// line's. Throws UsageError for a line that is not [SCENARIO] [--set KEY=VALUE]...
LoadedScenario load_line(const std::vector<std::string>& words, const CommandLine& line, const Catalog& catalog) {
  CommandLine words_line(*find_command("estimate"));
  words_line.add(SharedOption::set);
  words_line.parse(words);
  if (words_line.wants_help() || words_line.positional().size() > 1)
    throw words_line.usage("a --batch line is [SCENARIO] [--set KEY=VALUE]...");
  std::string path = words_line.positional().empty() ? "" : words_line.positional().front();
  if (path.empty()) {
    if (line.positional().empty()) throw line.usage("the line names no SCENARIO and the command line gives none");
    path = line.positional().front();
  }
  std::vector<Override> overrides = line.overrides();
  for (Override& o : words_line.overrides()) overrides.push_back(std::move(o));
  return load_scenario_with_search(path, overrides, catalog);
}

// Every line evaluated before anything is printed: a bad line is an error at FILE:LINE and prints nothing.
std::string run_batch(const CommandLine& line, const Catalog& catalog) {
  if (line.positional().size() > 1) throw line.usage("--batch takes at most one SCENARIO (the lines' default)");
  const std::string batch = line.text("batch");
  std::ifstream file;
  if (batch != "-") {
    file.open(batch);
    if (!file) throw InputError("shardmeter estimate: --batch " + batch + " cannot be read");
  }
  std::istream& in = batch == "-" ? std::cin : file;
  const std::string name = batch == "-" ? "<stdin>" : batch;
  std::string lines_out;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    const std::string where = name + ":" + std::to_string(number);
    try {
      const std::vector<std::string> words = CommandLine::split_words(text);
      if (words.empty() || words.front().starts_with('#')) continue;
      const LoadedScenario loaded = load_line(words, line, catalog);
      lines_out += results::estimate_json(loaded.scenario, model::evaluate(loaded.scenario), loaded.name,
                                          uncalibrated_in(catalog, loaded.scenario),
                                          results::JsonLayout::one_line, stack_source(loaded.doc));
    } catch (const ScenarioError& e) {
      throw prefixed(e, where);
    } catch (const UsageError& e) {
      throw UsageError(where + ": " + e.what());
    }
  }
  if (in.bad()) throw InputError("shardmeter estimate: --batch " + batch + " could not be read to its end");
  return lines_out;
}

}  // namespace

int run_estimate(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("estimate"));
  line.add(SharedOption::set).add(SharedOption::data_dir).add(SharedOption::prices).add(SharedOption::json);
  line.text("batch", "FILE",
            "one estimate per line of FILE (- for standard input), each line [SCENARIO] [--set KEY=VALUE]..., "
            "printed as JSON lines");
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    out << "\n--batch: a line without SCENARIO uses the command line's; the command line's --set apply first, then "
           "the line's.\nBlank lines and lines starting with # are skipped. Output: one JSON object per line, the "
           "same as\n--json, in the lines' order, printed once every line has been evaluated (a bad line prints "
           "nothing\nand exits with status 2 naming FILE:LINE).\n";
    return 0;
  }
  if (line.has("batch")) {
    const Catalog catalog = load_command_catalog(line);
    out << run_batch(line, catalog);
    return 0;
  }
  const std::string path = line.single_positional("SCENARIO", "a YAML file");
  const Catalog catalog = load_command_catalog(line);
  const LoadedScenario loaded = load_scenario_with_search(path, line.overrides(), catalog);
  const model::Estimate estimate = model::evaluate(loaded.scenario);

  if (line.json()) {
    out << results::estimate_json(loaded.scenario, estimate, loaded.name, uncalibrated_in(catalog, loaded.scenario),
                                  results::JsonLayout::indented, stack_source(loaded.doc));
  } else {
    out << format_estimate_table(loaded, catalog, estimate);
  }
  return 0;
}

}  // namespace shardmeter::cli
