// `shardmeter calibrate-network LOG... -o PROFILE.yaml [--nodes N --gpus-per-node G]`: nccl-tests logs (one run of
// all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf or sendrecv_perf each) into a network profile
// an island names with `network_profile` (docs/network.md). A log it cannot read is a located error (file:line),
// exit status 2, and no profile is written.
#include <fstream>
#include <ostream>
#include <sstream>

#include "results/files/atomic_file.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/network/nccl_log.hpp"
#include "src/network/profile_file.hpp"
#include "src/scenario/scenario_error.hpp"

namespace shardmeter::cli {

int run_calibrate_network(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("calibrate-network"));
  line.output("PROFILE.yaml", "write the profile here (atomically)");
  line.integer("nodes", "N", "nodes every log ran on (else each log's rank lines tell)", Range::between(1, 1e6));
  line.integer("gpus-per-node", "G", "GPUs per node of every log (else each log's rank lines tell)",
               Range::between(1, 1e4));
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    return 0;
  }
  const std::vector<std::string>& logs = line.positional();
  if (logs.empty()) throw line.usage("give at least one nccl-tests log");
  if (!line.has("output")) throw line.usage("-o PROFILE.yaml is required");
  network::RunShape shape;
  if (line.has("nodes")) shape.nodes = static_cast<int>(line.integer("nodes"));
  if (line.has("gpus-per-node")) shape.gpus_per_node = static_cast<int>(line.integer("gpus-per-node"));

  std::vector<network::NcclRun> runs;
  try {
    for (const std::string& path : logs) {
      std::ifstream in(path, std::ios::binary);
      if (!in) throw network::LogError(path, 0, "cannot be read");
      std::stringstream text;
      text << in.rdbuf();
      runs.push_back(network::parse_nccl_log(text.str(), path, shape));
    }
    (void)network::make_profile(runs);  // every check the profile makes, before anything is written
  } catch (const network::LogError& e) {
    throw InputError(e.what());
  }
  results::write_text_atomically(line.output(), network::profile_yaml(runs));
  for (const network::NcclRun& r : runs)
    out << r.file << ": " << network::network_op_name(r.op) << " over " << r.nodes << " x " << r.gpus_per_node
        << " GPUs, " << r.points.size() << " sizes\n";
  out << "wrote " << line.output() << "\n";
  return 0;
}

}  // namespace shardmeter::cli
