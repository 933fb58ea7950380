#include "src/network/profile_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace shardmeter::network {

namespace m = shardmeter::model;

namespace {

constexpr m::NetworkOp kOps[] = {m::NetworkOp::all_reduce, m::NetworkOp::all_gather, m::NetworkOp::reduce_scatter,
                                 m::NetworkOp::all_to_all, m::NetworkOp::send_recv};

std::vector<NcclRun> ordered(std::vector<NcclRun> runs) {
  std::stable_sort(runs.begin(), runs.end(), [](const NcclRun& a, const NcclRun& b) {
    return a.op != b.op ? a.op < b.op : a.nodes < b.nodes;
  });
  return runs;
}

}  // namespace

m::NetworkProfile make_profile(const std::vector<NcclRun>& unordered) {
  const std::vector<NcclRun> runs = ordered(unordered);
  m::NetworkProfile p;
  if (runs.empty()) throw LogError("calibrate-network", 0, "no logs given");
  p.gpus_per_node = runs.front().gpus_per_node;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const NcclRun& r = runs[i];
    if (r.gpus_per_node != p.gpus_per_node)
      throw LogError(r.file, 0, "ran with " + std::to_string(r.gpus_per_node) + " GPUs per node, " +
                                    runs.front().file + " with " + std::to_string(p.gpus_per_node) +
                                    ": one profile describes one kind of node");
    if (i > 0 && runs[i - 1].op == r.op && runs[i - 1].nodes == r.nodes)
      throw LogError(r.file, 0, std::string("measures ") + network_op_name(r.op) + " over " +
                                    std::to_string(r.nodes) + " nodes, as " + runs[i - 1].file +
                                    " does: give one log per operation and node count");
    m::ProfileOp& op = p.ops[static_cast<std::size_t>(r.op)];
    if (op.runs >= m::kMaxProfileNodeCounts)
      throw LogError(r.file, 0, std::string("is one node count too many for ") + network_op_name(r.op) +
                                    " (at most " + std::to_string(m::kMaxProfileNodeCounts) + ")");
    if (static_cast<int>(r.points.size()) > m::kMaxProfilePoints)
      throw LogError(r.file, r.points[static_cast<std::size_t>(m::kMaxProfilePoints)].line,
                     "has more than " + std::to_string(m::kMaxProfilePoints) +
                         " message sizes; run nccl-tests with a larger -f step");
    m::ProfileCurve& c = op.curves[static_cast<std::size_t>(op.runs++)];
    c.nodes = r.nodes;
    c.points = static_cast<int>(r.points.size());
    for (std::size_t j = 0; j < r.points.size(); ++j) {
      if (r.points[j].busbw_bytes_per_s <= 0)
        throw LogError(r.file, r.points[j].line, "has a zero bandwidth");
      c.bytes[j] = r.points[j].bytes;
      c.busbw_bytes_per_s[j] = r.points[j].busbw_bytes_per_s;
    }
  }
  m::prepare_profile(p);  // the logs every lookup reads, once (model/comm/network_profile.hpp)
  return p;
}

std::string profile_yaml(const std::vector<NcclRun>& unordered) {
  const std::vector<NcclRun> runs = ordered(unordered);
  std::string out;
  out += "# ShardMeter network profile, written by `shardmeter calibrate-network` from nccl-tests logs "
         "(docs/network.md).\n";
  out += "# points: [message size in bytes (nccl-tests' size column), out-of-place busbw in GB/s (1e9 bytes/s)]\n";
  out += fmt::format("gpus_per_node: {}\n", runs.empty() ? 0 : runs.front().gpus_per_node);
  out += "runs:\n";
  for (const NcclRun& r : runs) {
    out += fmt::format("  - op: {}\n    nodes: {}\n", network_op_name(r.op), r.nodes);
    YAML::Emitter log;
    log << YAML::DoubleQuoted << r.file;
    out += fmt::format("    log: {}\n", log.c_str());
    if (!r.gpu.empty()) {
      YAML::Emitter gpu;
      gpu << YAML::DoubleQuoted << r.gpu;
      out += fmt::format("    gpu: {}\n", gpu.c_str());
    }
    out += "    points:\n";
    for (const NcclPoint& pt : r.points)
      out += fmt::format("      - [{:.0f}, {:.6g}]\n", pt.bytes, pt.busbw_bytes_per_s / 1e9);
  }
  return out;
}

m::NetworkProfile load_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LogError(path, 0, "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    throw LogError(path, e.mark.line + 1, "is not valid YAML: " + e.msg);
  }
  auto line_of = [](const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; };
  if (!root.IsMap()) throw LogError(path, line_of(root), "is not a network profile (a map with gpus_per_node and runs)");
  auto as_number = [&](const YAML::Node& n, const char* what, double lo) {
    double v = 0;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      throw LogError(path, line_of(n), std::string(what) + " = " + (n.IsScalar() ? n.Scalar() : "?") +
                                           " is not a number");
    }
    if (!std::isfinite(v) || v < lo)
      throw LogError(path, line_of(n), std::string(what) + " = " + n.Scalar() + " is out of range");
    return v;
  };
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (key != "gpus_per_node" && key != "runs")
      throw LogError(path, line_of(kv.first), "has an unknown key " + key + " (known: gpus_per_node, runs)");
  }
  if (!root["gpus_per_node"]) throw LogError(path, line_of(root), "lacks gpus_per_node");
  if (!root["runs"] || !root["runs"].IsSequence() || root["runs"].size() == 0)
    throw LogError(path, line_of(root), "lacks a non-empty list runs");
  const double gpn = as_number(root["gpus_per_node"], "gpus_per_node", 1);
  std::vector<NcclRun> runs;
  for (const YAML::Node& r : root["runs"]) {
    if (!r.IsMap()) throw LogError(path, line_of(r), "runs holds an entry that is not a map");
    NcclRun run;
    run.file = path + ":" + std::to_string(line_of(r));
    run.gpus_per_node = static_cast<int>(gpn);
    for (const auto& kv : r) {
      const std::string key = kv.first.as<std::string>();
      if (key != "op" && key != "nodes" && key != "log" && key != "gpu" && key != "points")
        throw LogError(path, line_of(kv.first), "has an unknown key " + key + " in a run (known: op, nodes, log, gpu, points)");
    }
    if (!r["op"] || !r["nodes"] || !r["points"]) throw LogError(path, line_of(r), "a run lacks op, nodes or points");
    const std::string op = r["op"].Scalar();
    bool known = false;
    for (m::NetworkOp o : kOps)
      if (op == network_op_name(o)) {
        run.op = o;
        known = true;
      }
    if (!known)
      throw LogError(path, line_of(r["op"]), "op = " + op +
                                                 " is not one of all_reduce, all_gather, reduce_scatter, all_to_all, send_recv");
    const double nodes = as_number(r["nodes"], "nodes", 1);
    if (nodes != std::floor(nodes) || nodes > 1e6) throw LogError(path, line_of(r["nodes"]), "nodes is not a node count");
    run.nodes = static_cast<int>(nodes);
    if (!r["points"].IsSequence() || r["points"].size() == 0)
      throw LogError(path, line_of(r["points"]), "points is not a non-empty list of [bytes, busbw GB/s]");
    for (const YAML::Node& pt : r["points"]) {
      if (!pt.IsSequence() || pt.size() != 2)
        throw LogError(path, line_of(pt), "a point is not a pair [bytes, busbw GB/s]");
      NcclPoint p;
      p.line = line_of(pt);
      p.bytes = as_number(pt[0], "bytes", 1);
      p.busbw_bytes_per_s = as_number(pt[1], "busbw", 0) * 1e9;
      if (p.busbw_bytes_per_s <= 0) throw LogError(path, p.line, "busbw must be above 0 GB/s");
      if (!run.points.empty() && p.bytes <= run.points.back().bytes)
        throw LogError(path, p.line, "sizes must ascend within a run");
      run.points.push_back(p);
    }
    runs.push_back(run);
  }
  return make_profile(runs);
}

}  // namespace shardmeter::network
