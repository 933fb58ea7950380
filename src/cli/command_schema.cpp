// `shardmeter schema`: print every scenario key with its type, unit, default and meaning (Markdown). The key table
// of docs/scenarios.md is this output, between the schema:begin/end markers (`make readme-schema`).
#include <ostream>

#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/scenario/scenario_schema.hpp"

namespace shardmeter::cli {

int run_schema(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("schema"));
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    return 0;
  }
  if (!line.positional().empty()) throw line.usage("takes no arguments");
  out << schema_markdown();
  return 0;
}

}  // namespace shardmeter::cli
