#pragma once
// The table of shardmeter commands.
//
// To add a command (e.g. `validate`):
//   1. write src/cli/command_validate.cpp defining `int run_validate(const std::vector<std::string>& args,
//      std::ostream& out)`; `args` are the words after the command name. Declare its options and read them with
//      a CommandLine (src/cli/command_line.hpp), using the shared options for --set, --data-dir, --threads, --json;
//      print `--help` to `out` and return 0; throw UsageError / ScenarioError for bad input (status 2); write
//      results to `out` or to files (write a temporary file in the same directory, then rename, so a failure
//      leaves no partial file);
//   2. declare run_validate here and add one row to kCommands in src/cli/commands.cpp.
// Nothing else changes: src/CMakeLists.txt globs src/**/*.cpp.
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

// ---- commands ------------------------------------------------------------------------------------------
int run_estimate(const std::vector<std::string>& args, std::ostream& out);   // src/cli/command_estimate.cpp
int run_validate(const std::vector<std::string>& args, std::ostream& out);   // src/cli/command_validate.cpp
int run_calibrate(const std::vector<std::string>& args, std::ostream& out);  // src/cli/command_validate.cpp
int run_schema(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_schema.cpp
int run_list(const std::vector<std::string>& args, std::ostream& out);       // src/cli/command_list.cpp
int run_report(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_report.cpp
int run_export(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_export.cpp
int run_import(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_import.cpp
int run_nightly(const std::vector<std::string>& args, std::ostream& out);    // src/cli/command_nightly.cpp
int run_sweep(const std::vector<std::string>& args, std::ostream& out);      // src/cli/command_sweep.cpp
int run_thresholds(const std::vector<std::string>& args, std::ostream& out); // src/cli/command_thresholds.cpp
int run_search(const std::vector<std::string>& args, std::ostream& out);     // src/cli/command_search.cpp
int run_calibrate_network(const std::vector<std::string>& args, std::ostream& out);  // command_calibrate_network.cpp

}  // namespace shardmeter::cli
