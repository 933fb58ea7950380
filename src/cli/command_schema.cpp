// `shardmeter schema`: print every scenario key with its type, unit, default and meaning (Markdown). README.md's
// "Scenario files" table is this output, between the schema:begin/end markers.
#include <ostream>

#include "src/cli/commands.hpp"
#include "src/scenario/scenario_schema.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

int run_schema(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("schema");
  po::options_description options("Options");
  options.add_options()("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "unused");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    return 0;
  }
  out << schema_markdown();
  return 0;
}

}  // namespace shardmeter::cli
