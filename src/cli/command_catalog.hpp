#pragma once
// The GPU catalog a command runs with: <data-dir>'s, re-priced by `--prices FILE` (keyed by GPU type, so one GPU's
// price never changes another's) when the command takes that option and it is given.
#include "src/cli/command_line.hpp"
#include "src/scenario/catalog.hpp"

namespace shardmeter::cli {

// Throws ScenarioError (bad catalog or prices file, naming file, line and column).
Catalog load_command_catalog(const CommandLine& line);

}  // namespace shardmeter::cli
