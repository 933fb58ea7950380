#pragma once
// The standard stdout of nccl-tests (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
// sendrecv_perf) read into one measured run: which operation, over how many nodes x GPUs per node, and the
// out-of-place bus bandwidth at every message size (docs/network.md).
#include <stdexcept>
#include <string>
#include <vector>

#include "model/comm/network_profile.hpp"

namespace shardmeter::network {

// A log that cannot be read as nccl-tests output. what() reads "<file>:<line>: <problem>" (line 0: the whole file).
class LogError : public std::runtime_error {
public:
  LogError(const std::string& file, int line, const std::string& problem);
};

struct NcclPoint {
  double bytes = 0;                 // nccl-tests' `size` column
  double busbw_bytes_per_s = 0;     // out-of-place busbw (GB/s x 1e9)
  int line = 0;
};

struct NcclRun {
  std::string file;
  model::NetworkOp op = model::NetworkOp::all_reduce;
  int nodes = 0;
  int gpus_per_node = 0;
  std::string gpu;                  // device name of rank 0, as the log prints it ("" when absent)
  std::vector<NcclPoint> points;    // sizes strictly ascending
};

// Node and GPU counts given on the command line (0 = take them from the log's rank lines).
struct RunShape {
  int nodes = 0;
  int gpus_per_node = 0;
};

// Reads one log. The operation comes from the log ("# Collective test starting: all_reduce_perf", or the binary's
// name on a command line it echoes) or else from the file's name; the shape from the rank lines
// ("#  Rank  0 Group  0 Pid 123 on HOST device  0 [0x18] NVIDIA H100 80GB HBM3": distinct hosts x ranks per host)
// or `shape`. Any line it cannot account for in the results table, a missing table, a shape it cannot tell or that
// contradicts `shape`, is a LogError at that line.
NcclRun parse_nccl_log(const std::string& text, const std::string& file, RunShape shape);

// The nccl-tests binary name of an operation ("all_reduce_perf"), and the profile's name of it ("all_reduce").
const char* nccl_binary_name(model::NetworkOp op);
const char* network_op_name(model::NetworkOp op);

}  // namespace shardmeter::network
