#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "src/network/nccl_log.hpp"
#include "src/network/profile_file.hpp"

using namespace shardmeter;
using shardmeter::model::NetworkOp;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(std::filesystem::path(SHARDMETER_SOURCE_DIR) / "tests" / "data" / "nccl" / path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A two-node run of 2 GPUs each, as nccl-tests prints it (the command line echoed by mpirun first).
const char* const kTwoNodes =
    "mpirun -np 4 ./build/all_reduce_perf -b 1M -e 4M -f 2\n"
    "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid  15784 on  nodeA device  0 [0x18] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid  15785 on  nodeA device  1 [0x2a] NVIDIA H100 80GB HBM3\n"
    "#  Rank  2 Group  0 Pid  24926 on  nodeB device  0 [0x18] NVIDIA H100 80GB HBM3\n"
    "#  Rank  3 Group  0 Pid  24927 on  nodeB device  1 [0x2a] NVIDIA H100 80GB HBM3\n"
    "nodeA:15784:15790 [0] NCCL INFO Channel 00/02 :    0   1   2   3\n"
    "#\n"
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
    "     1048576        262144     float     sum      -1   104.86   10.00   15.00      0   104.00   10.08   15.12      0\n"
    "     2097152        524288     float     sum      -1   139.81   15.00   22.50      0   139.00   15.09   22.63      0\n"
    "     4194304       1048576     float     sum      -1   209.72   20.00   30.00      0   209.00   20.07   30.10      0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 22.5 \n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text, network::RunShape shape = {}) {
  try {
    network::parse_nccl_log(text, "run.log", shape);
  } catch (const network::LogError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("An nccl-tests log gives its operation, shape and out-of-place bus bandwidth") {
  const network::NcclRun run = network::parse_nccl_log(kTwoNodes, "run.log", {});
  CHECK(run.op == NetworkOp::all_reduce);
  CHECK(run.nodes == 2);
  CHECK(run.gpus_per_node == 2);
  CHECK(run.gpu == "NVIDIA H100 80GB HBM3");
  REQUIRE(run.points.size() == 3);
  // busbw from the time: 1048576 B / 104.86 µs = 10.0 GB/s algbw, x 2 (4-1)/4 = 15.0 GB/s.
  CHECK(run.points[0].bytes == 1048576);
  CHECK(run.points[0].busbw_bytes_per_s == Approx(1048576 / 104.86e-6 * 1.5));
  CHECK(run.points[2].line == 16);
}

TEST_CASE("The synthetic sample logs read as the runs they describe") {
  const network::NcclRun ag = network::parse_nccl_log(read("all_gather_perf_64n.log"), "ag64", {});
  CHECK(ag.op == NetworkOp::all_gather);
  CHECK(ag.nodes == 64);
  CHECK(ag.gpus_per_node == 8);
  CHECK(ag.points.size() == 9);
  // The 4 GiB row: 4294967296 B / 343126 µs x 511/512 = 12.49 GB/s.
  CHECK(ag.points.back().busbw_bytes_per_s == Approx(4294967296.0 / 343126e-6 * 511 / 512));
}

TEST_CASE("A profile file round-trips what calibrate-network writes") {
  std::vector<network::NcclRun> runs;
  for (const char* f : {"all_gather_perf_1n.log", "all_gather_perf_4n.log", "all_reduce_perf_1n.log"})
    runs.push_back(network::parse_nccl_log(read(f), f, {}));
  const std::string path = "test_nccl_log_profile.yaml";
  {
    std::ofstream out(path);
    out << network::profile_yaml(runs);
  }
  const model::NetworkProfile p = network::load_profile(path);
  CHECK(p.gpus_per_node == 8);
  const auto& ag = p.op(NetworkOp::all_gather);
  REQUIRE(ag.runs == 2);
  CHECK(ag.curves[0].nodes == 1);
  CHECK(ag.curves[1].nodes == 4);
  CHECK(ag.curves[1].busbw_bytes_per_s[8] == Approx(runs[1].points[8].busbw_bytes_per_s).epsilon(1e-5));
  CHECK(p.op(NetworkOp::all_reduce).runs == 1);
  CHECK(p.op(NetworkOp::send_recv).runs == 0);
  std::remove(path.c_str());
}

TEST_CASE("Bad nccl-tests logs are located errors, never a guessed number") {
  // A truncated row.
  CHECK(error_of(replaced(kTwoNodes, "   209.72   20.00   30.00      0   209.00   20.07   30.10      0", "   209.72"))
            .rfind("run.log:16: has 6 columns", 0) == 0);
  // A busbw that is not algbw x the factor of 4 ranks: the log was not the run we think.
  CHECK(error_of(replaced(kTwoNodes, "10.00   15.00", "10.00   17.50")).rfind("run.log:14: busbw", 0) == 0);
  // Wrong results.
  CHECK(error_of(replaced(kTwoNodes, "15.00      0", "15.00      3")).rfind("run.log:14: #wrong = 3", 0) == 0);
  // A failed run.
  CHECK(error_of(replaced(kTwoNodes, "# Out of bounds values : 0 OK", "# Out of bounds values : 12 FAILED"))
            .rfind("run.log:17:", 0) == 0);
  std::string failed = kTwoNodes;
  failed.append("nodeA: Test NCCL failure common.cu:1010 'unhandled system error'\n");
  CHECK(error_of(failed).rfind("run.log:19: reports a failed run", 0) == 0);
  // Sizes out of order.
  CHECK(error_of(replaced(kTwoNodes, "     4194304       1048576", "     2097152        524288"))
            .find("run.log:16: size = 2097152 does not follow") == 0);
  // No table at all.
  CHECK(error_of("# nThread 1 nGpus 1\nall_reduce_perf: nothing\n").rfind("run.log: has no nccl-tests results", 0) == 0);
  // Rank lines that contradict the command line.
  CHECK(error_of(kTwoNodes, network::RunShape{4, 2}).rfind("run.log:5: rank lines give 2 nodes, --nodes gives 4", 0) == 0);
  // Without rank lines the shape must be given; with it, it is used.
  std::string no_ranks = kTwoNodes;
  for (int i = 0; i < 4; ++i) no_ranks = replaced(no_ranks, "#  Rank  " + std::to_string(i), "# (rank)");
  CHECK(error_of(no_ranks).find("give --nodes and --gpus-per-node") != std::string::npos);
  CHECK(network::parse_nccl_log(no_ranks, "run.log", network::RunShape{2, 2}).nodes == 2);
  // No operation anywhere.
  CHECK(error_of(replaced(kTwoNodes, "./build/all_reduce_perf", "./build/test"))
            .rfind("run.log: does not say which nccl-tests binary", 0) == 0);
}

TEST_CASE("Two logs of the same operation and node count are refused") {
  const network::NcclRun a = network::parse_nccl_log(kTwoNodes, "a.log", {});
  const network::NcclRun b = network::parse_nccl_log(kTwoNodes, "b.log", {});
  try {
    network::make_profile({a, b});
    FAIL("accepted");
  } catch (const network::LogError& e) {
    CHECK(std::string(e.what()).rfind("b.log: measures all_reduce over 2 nodes, as a.log does", 0) == 0);
  }
}
