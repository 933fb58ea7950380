#include "src/network/nccl_log.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>

namespace shardmeter::network {

namespace m = shardmeter::model;

namespace {

constexpr m::NetworkOp kOps[] = {m::NetworkOp::all_reduce, m::NetworkOp::all_gather, m::NetworkOp::reduce_scatter,
                                 m::NetworkOp::all_to_all, m::NetworkOp::send_recv};
// Spellings of each operation in a file name, besides its binary's name.
const char* const kFileWords[][2] = {{"all_reduce", "allreduce"}, {"all_gather", "allgather"},
                                     {"reduce_scatter", "reducescatter"}, {"alltoall", "all_to_all"},
                                     {"sendrecv", "send_recv"}};

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool number(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

namespace {
std::string located(const std::string& file, int line, const std::string& problem) {
  std::string out = file;
  if (line > 0) out.append(":").append(std::to_string(line));
  out.append(": ").append(problem);
  return out;
}
}  // namespace

LogError::LogError(const std::string& file, int line, const std::string& problem)
    : std::runtime_error(located(file, line, problem)) {}

const char* nccl_binary_name(m::NetworkOp op) {
  switch (op) {
    case m::NetworkOp::all_reduce: return "all_reduce_perf";
    case m::NetworkOp::all_gather: return "all_gather_perf";
    case m::NetworkOp::reduce_scatter: return "reduce_scatter_perf";
    case m::NetworkOp::all_to_all: return "alltoall_perf";
    case m::NetworkOp::send_recv: return "sendrecv_perf";
  }
  return "";
}

const char* network_op_name(m::NetworkOp op) {
  switch (op) {
    case m::NetworkOp::all_reduce: return "all_reduce";
    case m::NetworkOp::all_gather: return "all_gather";
    case m::NetworkOp::reduce_scatter: return "reduce_scatter";
    case m::NetworkOp::all_to_all: return "all_to_all";
    case m::NetworkOp::send_recv: return "send_recv";
  }
  return "";
}

NcclRun parse_nccl_log(const std::string& text, const std::string& file, RunShape shape) {
  NcclRun run;
  run.file = file;
  // mpirun --tag-output prefixes every line with "[1,0]<stdout>:".
  static const std::regex tag(R"(^\[\d+,\d+\]<std(out|err)>:)");
  static const std::regex rank_line(
      R"(^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s*(.*?)\s*$)");
  static const std::regex starting(R"(Collective test starting:\s*(\S+))");

  int op_line = 0;
  bool have_op = false;
  auto set_op = [&](m::NetworkOp op, int line, const std::string& how) {
    if (have_op && op != run.op)
      throw LogError(file, line, how + " names " + nccl_binary_name(op) + " but line " + std::to_string(op_line) +
                                     " named " + nccl_binary_name(run.op) + ": one log per nccl-tests run");
    run.op = op;
    have_op = true;
    op_line = line;
  };

  std::map<std::string, int> ranks_per_host;
  std::vector<std::string> host_order;
  int first_rank_line = 0;
  int table_line = 0;       // the column header line
  bool table_done = false;
  bool has_root = true;
  struct Raw {
    double bytes, time_us, busbw_gb;
    int line;
  };
  std::vector<Raw> raw;

  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch match;
    if (std::regex_search(line, match, tag)) line = match.suffix();
    std::smatch sm;
    if (std::regex_search(line, sm, starting)) {
      bool known = false;
      for (m::NetworkOp op : kOps)
        if (sm[1] == nccl_binary_name(op)) {
          set_op(op, n, "the test header");
          known = true;
        }
      if (!known) throw LogError(file, n, "runs " + sm[1].str() + ", which is not one of all_reduce_perf, "
                                          "all_gather_perf, reduce_scatter_perf, alltoall_perf, sendrecv_perf");
      continue;
    }
    if (std::regex_match(line, sm, rank_line)) {
      if (first_rank_line == 0) {
        first_rank_line = n;
        run.gpu = sm[3];
      }
      const std::string host = sm[2];
      if (ranks_per_host.find(host) == ranks_per_host.end()) host_order.push_back(host);
      ++ranks_per_host[host];
      continue;
    }
    if (!line.empty() && line[0] != '#' && table_line == 0) {
      // A command line the launcher echoes (mpirun ... ./build/all_reduce_perf -b 8 ...).
      for (m::NetworkOp op : kOps)
        if (line.find(nccl_binary_name(op)) != std::string::npos) set_op(op, n, "the command line");
    }
    if (line.find("failure") != std::string::npos || line.find("NCCL WARN") != std::string::npos)
      throw LogError(file, n, "reports a failed run (\"" + line.substr(0, 120) + "\"): no bandwidth can be read from it");
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (w[0] == "#") {
      if (line.find("busbw") != std::string::npos && line.find("size") != std::string::npos) {
        if (table_line != 0) throw LogError(file, n, "starts a second results table (the first at line " +
                                                      std::to_string(table_line) + "): one run per log");
        table_line = n;
        has_root = line.find("root") != std::string::npos;
      } else if (table_line != 0 && (line.find("Out of bounds") != std::string::npos ||
                                     line.find("Avg bus bandwidth") != std::string::npos)) {
        table_done = true;
        if (line.find("Out of bounds") != std::string::npos && line.find("OK") == std::string::npos)
          throw LogError(file, n, "reports out-of-bounds values: the run's results are not valid");
      }
      continue;
    }
    if (w[0][0] == '#') continue;
    // Any other line outside the results table (NCCL INFO, the launcher's output) is not ours to read.
    if (table_line == 0 || table_done) {
      if (std::isdigit(static_cast<unsigned char>(w[0][0])) && table_line == 0 && w.size() >= 12)
        throw LogError(file, n, "has a results row before the table's column header");
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(w[0][0]))) continue;  // interleaved NCCL INFO lines
    const std::size_t fields = has_root ? 13 : 12;
    if (w.size() != fields)
      throw LogError(file, n, "has " + std::to_string(w.size()) + " columns where nccl-tests prints " +
                                  std::to_string(fields) + " (size count type redop" + (has_root ? " root" : "") +
                                  ", then time algbw busbw #wrong out-of-place and in-place)");
    const std::size_t t = has_root ? 5 : 4;
    double bytes = 0, time_us = 0, algbw = 0, busbw = 0, wrong = 0;
    if (!number(w[0], bytes) || bytes <= 0 || bytes != std::floor(bytes))
      throw LogError(file, n, "size = " + w[0] + " is not a positive whole number of bytes");
    if (!number(w[t], time_us) || time_us <= 0) throw LogError(file, n, "time = " + w[t] + " is not a positive number of µs");
    if (!number(w[t + 1], algbw) || algbw < 0) throw LogError(file, n, "algbw = " + w[t + 1] + " is not a bandwidth");
    if (!number(w[t + 2], busbw) || busbw < 0) throw LogError(file, n, "busbw = " + w[t + 2] + " is not a bandwidth");
    if (w[t + 3] != "N/A" && (!number(w[t + 3], wrong) || wrong != 0))
      throw LogError(file, n, "#wrong = " + w[t + 3] + ": the run returned wrong results, its timing is not valid");
    if (!raw.empty() && bytes <= raw.back().bytes)
      throw LogError(file, n, "size = " + w[0] + " does not follow the previous row's " +
                                  std::to_string(static_cast<long long>(raw.back().bytes)) + " (sizes ascend)");
    // algbw = size / time (GB/s = 1e9 bytes/s), as nccl-tests computes it.
    const double expected_algbw = bytes / (time_us * 1e-6) / 1e9;
    if (std::fabs(expected_algbw - algbw) > std::max(0.011, 0.02 * algbw))
      throw LogError(file, n, "algbw = " + w[t + 1] + " GB/s is not size / time = " + std::to_string(expected_algbw));
    raw.push_back({bytes, time_us, busbw, n});
  }

  if (!have_op) {
    const std::string name = base_name(file);
    for (std::size_t i = 0; i < std::size(kOps); ++i)
      if (name.find(nccl_binary_name(kOps[i])) != std::string::npos || name.find(kFileWords[i][0]) != std::string::npos ||
          name.find(kFileWords[i][1]) != std::string::npos) {
        set_op(kOps[i], 0, "the file name");
        break;
      }
    if (!have_op)
      throw LogError(file, 0, "does not say which nccl-tests binary wrote it (no \"# Collective test starting:\" "
                              "line): name the file after it, e.g. all_reduce_perf_4nodes.log");
  }
  if (table_line == 0 || raw.empty())
    throw LogError(file, table_line, table_line == 0 ? "has no nccl-tests results table (the header with size, count, "
                                                       "type, redop, root, time, algbw, busbw)"
                                                     : "has a results table header but no rows");

  // Shape: the rank lines, or the command line; both must agree.
  if (first_rank_line != 0) {
    const int per_host = ranks_per_host[host_order.front()];
    for (const std::string& host : host_order)
      if (ranks_per_host[host] != per_host)
        throw LogError(file, first_rank_line, "rank lines give " + std::to_string(ranks_per_host[host]) +
                                                  " ranks on host " + host + " but " + std::to_string(per_host) +
                                                  " on " + host_order.front() + ": nodes must hold equal GPU counts");
    const int nodes = static_cast<int>(host_order.size());
    if (shape.nodes > 0 && shape.nodes != nodes)
      throw LogError(file, first_rank_line, "rank lines give " + std::to_string(nodes) + " nodes, --nodes gives " +
                                                std::to_string(shape.nodes));
    if (shape.gpus_per_node > 0 && shape.gpus_per_node != per_host)
      throw LogError(file, first_rank_line, "rank lines give " + std::to_string(per_host) +
                                                " GPUs per node, --gpus-per-node gives " +
                                                std::to_string(shape.gpus_per_node));
    run.nodes = nodes;
    run.gpus_per_node = per_host;
  } else {
    if (shape.nodes <= 0 || shape.gpus_per_node <= 0)
      throw LogError(file, 0, "has no rank lines (\"#  Rank  0 Group  0 Pid ... on HOST device ...\"): give "
                              "--nodes and --gpus-per-node");
    run.nodes = shape.nodes;
    run.gpus_per_node = shape.gpus_per_node;
  }
  const int ranks = run.nodes * run.gpus_per_node;
  if (ranks < 2) throw LogError(file, first_rank_line, "runs on one GPU: it measures no network");

  // busbw = algbw x nccl-tests' factor for the operation and rank count; checked against the printed column (a
  // mismatch means the log's operation or shape is not what we read).
  const double factor = m::busbw_factor(run.op, ranks);
  for (const Raw& r : raw) {
    const double busbw = r.bytes / (r.time_us * 1e-6) * factor;
    if (std::fabs(busbw / 1e9 - r.busbw_gb) > std::max(0.011, 0.02 * r.busbw_gb))
      throw LogError(file, r.line, "busbw = " + std::to_string(r.busbw_gb) + " GB/s is not algbw x " +
                                       std::to_string(factor) + " (" + network_op_name(run.op) + " over " +
                                       std::to_string(ranks) + " ranks): the operation or the node count is not "
                                       "what this log ran");
    run.points.push_back({r.bytes, busbw, r.line});
  }
  return run;
}

}  // namespace shardmeter::network
