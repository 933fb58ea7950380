#include "src/cli/cli.hpp"

#include <ostream>

#include <fmt/format.h>

#include "src/cli/commands.hpp"
#include "src/scenario/version.hpp"

namespace shardmeter::cli {

namespace {

void print_help(std::ostream& out) {
  out << "shardmeter " << version() << " — plans large-scale transformer training: step time, throughput, MFU,\n"
      << "memory, cost and the bottleneck of a scenario (model, cluster, plan).\n\n"
      << "Usage: shardmeter COMMAND [ARGS]...\n"
      << "       shardmeter COMMAND --help\n"
      << "       shardmeter --help | --version\n\nCommands:\n";
  for (const Command& c : commands()) out << fmt::format("  {:<12}{}\n", c.name, c.summary);
  out << "\nBad input (scenario errors, unknown options) exits with status 2 and one line on stderr that starts\n"
      << "with its location; internal errors exit with status 1.\n"
      << "Catalogs and presets are read from " << data_dir() << " (override: $SHARDMETER_DATA_DIR or --data-dir).\n";
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out) {
  if (args.empty()) throw UsageError("shardmeter: missing COMMAND (see shardmeter --help)");
  const std::string& first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    print_help(out);
    return 0;
  }
  if (first == "--version" || first == "-V") {
    out << "shardmeter " << version() << "\n";
    return 0;
  }
  const Command* command = find_command(first);
  if (command == nullptr) {
    std::string known;
    for (const Command& c : commands()) known += (known.empty() ? "" : ", ") + std::string(c.name);
    throw UsageError("shardmeter: " + first + " is not a command; commands: " + known + " (see shardmeter --help)");
  }
  return command->run(std::vector<std::string>(args.begin() + 1, args.end()), out);
}

}  // namespace shardmeter::cli
