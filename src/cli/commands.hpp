#pragma once
// The table of shardmeter commands.
//
// To add a command (e.g. `validate`):
//   1. write src/cli/command_validate.cpp defining `int run_validate(const std::vector<std::string>& args,
//      std::ostream& out)`; `args` are the words after the command name. Parse them with
//      parse_command_line() below (Boost.Program_options); print `--help` to `out` and return 0; throw
//      UsageError / ScenarioError for bad input (status 2); write results to `out` or to files (write a temporary
//      file in the same directory, then rename, so a failure leaves no partial file);
//   2. declare run_validate here and add one row to kCommands in src/cli/commands.cpp.
// Nothing else changes: src/CMakeLists.txt globs src/**/*.cpp.
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "src/scenario/scenario_document.hpp"

namespace shardmeter::cli {

using CommandFunction = int (*)(const std::vector<std::string>& args, std::ostream& out);

struct Command {
  std::string_view name;      // as typed: `shardmeter estimate ...`
  std::string_view usage;     // "estimate SCENARIO [--set K=V]... [--json]"
  std::string_view summary;   // one line for `shardmeter --help`
  CommandFunction run;
};

std::span<const Command> commands();
const Command* find_command(std::string_view name);

// Parses a command's arguments: named options plus positional arguments collected under `positional_name`.
// Unknown options and malformed values become UsageError("shardmeter <command>: ..."). Prints nothing.
boost::program_options::variables_map parse_command_line(const Command& command, const std::vector<std::string>& args,
                                                         const boost::program_options::options_description& options,
                                                         const char* positional_name);
// "Usage: shardmeter <usage>\n<summary>\n\n<options>"
void print_command_help(const Command& command, const boost::program_options::options_description& options,
                        std::ostream& out);

// ---- helpers for commands that read one scenario (estimate, search, sweep, thresholds) --------------------
// Adds `--set KEY=VALUE` (repeatable) and `--data-dir DIR`.
void add_scenario_options(boost::program_options::options_description& options);
// The one positional argument collected under `key` (parse_command_line's positional_name); UsageError naming the
// command and `label` ("SCENARIO", "FRONT.h5") otherwise, with `what` in parentheses when given.
std::string single_positional(const Command& command, const boost::program_options::variables_map& vm,
                              const char* key, const char* label, const char* what = "");
// single_positional for "scenario" / SCENARIO.
std::string single_scenario(const Command& command, const boost::program_options::variables_map& vm,
                            const char* what = "a YAML file");
// The --set overrides, parsed (ScenarioError for a malformed one), in command-line order.
std::vector<Override> scenario_overrides(const boost::program_options::variables_map& vm);
// --data-dir, or $SHARDMETER_DATA_DIR, or the source tree's scenarios/.
std::string data_dir_option(const boost::program_options::variables_map& vm);

// ---- commands ------------------------------------------------------------------------------------------
int run_estimate(const std::vector<std::string>& args, std::ostream& out);   // src/cli/command_estimate.cpp
int run_validate(const std::vector<std::string>& args, std::ostream& out);   // src/cli/command_validate.cpp
int run_calibrate(const std::vector<std::string>& args, std::ostream& out);  // src/cli/command_validate.cpp
int run_schema(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_schema.cpp
int run_report(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_report.cpp
int run_export(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_export.cpp
int run_nightly(const std::vector<std::string>& args, std::ostream& out);    // src/cli/command_nightly.cpp
int run_sweep(const std::vector<std::string>& args, std::ostream& out);      // src/cli/command_sweep.cpp
int run_thresholds(const std::vector<std::string>& args, std::ostream& out); // src/cli/command_thresholds.cpp
int run_search(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_search.cpp

}  // namespace shardmeter::cli
