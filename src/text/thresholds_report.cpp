#include "src/text/thresholds_report.hpp"
#include "model/spec/enum_names.hpp"
#include "src/scenario/scenario_error.hpp"

#include <array>
#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/job/evaluate.hpp"
#include "model/spec/units.hpp"
#include "model/comm/wan.hpp"
#include "results/columns.hpp"
#include "results/markup.hpp"
#include "src/text/text_format.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

namespace {

constexpr double kBitsPerByte = 8.0;

std::string gbit(double bytes_per_s) {
  const double v = bytes_per_s * kBitsPerByte / 1e9;
  return (v >= 1000 ? grouped(v) : fmt::format("{:.4g}", v)) + " Gbit/s";
}
std::string gbyte(double bytes_per_s) { return fmt::format("{:.4g} GB/s", bytes_per_s / 1e9); }

nlohmann::ordered_json number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

// The exposed communication that remains with unlimited node network: "TP 12.3 %, WAN 40.1 %".
std::string remaining_comm(const m::Estimate& e) {
  if (!(e.step_time_s > 0)) return "the plan cannot be evaluated";
  std::string out;
  const auto add = [&](const char* what, double s) {
    if (s / e.step_time_s < 0.005) return;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", what, percent(s / e.step_time_s));
  };
  add("TP", e.time.tp_comm_s);
  add("PP", e.time.pp_comm_s);
  add("DP", e.time.dp_comm_s);
  add("WAN", e.time.wan_s);
  return out.empty() ? "none" : out;
}

constexpr std::array<std::string_view, 3> kMethodNames = {"sync_dp", "diloco", "streaming_diloco"};

std::string method_label(const m::WanSchedule& w) {
  switch (w.method) {
    case m::WanMethod::data_parallel: return "synchronous DP";
    case m::WanMethod::diloco: return fmt::format("DiLoCo H={}", w.inner_steps);
    case m::WanMethod::streaming_diloco:
      return fmt::format("Streaming H={} P={} tau={}", w.inner_steps, w.fragments, w.overlap_steps);
  }
  return "";
}

std::string gbps_cell(double bytes_per_s) {
  const double v = m::bytes_per_s_to_gbit_per_s(bytes_per_s);
  return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
}

void format_wan_table(std::string& out, const ThresholdsReport& r) {
  out += "\nWAN bandwidth per island link (Gbit/s) for a compute utilisation\n"
         "  (the bucketed timeline of the DiLoCo bandwidth tables, docs/model.md §12.3)\n";
  if (!r.wan.applicable) {
    out += "  one island: no WAN\n";
    return;
  }
  out += fmt::format("  {} islands, inner step {} of compute; now {:.4g} Gbit/s per link; this plan's peak need "
                     "{:.4g} Gbit/s\n", m::wan_ring(r.scenario.cluster).islands, seconds(r.wan.rows[0].schedule.step_s),
                     m::bytes_per_s_to_gbit_per_s(m::wan_ring(r.scenario.cluster).bytes_per_s),
                     m::bytes_per_s_to_gbit_per_s(r.estimate.wan_peak_bytes_per_s));
  out += fmt::format("  {:<32}{:>9}{:>9}{:>9}{:>9}{:>9}{:>11}\n", "method", "50 %", "80 %", "90 %", "95 %", "99 %", "peak");
  for (const m::WanThresholdRow& row : r.wan.rows) {
    out += fmt::format("  {:<32}", method_label(row.schedule));
    for (const double b : row.bytes_per_s) out += fmt::format("{:>9}", gbps_cell(b));
    out += fmt::format("{:>11}\n", gbps_cell(row.peak_bytes_per_s));
  }
}

nlohmann::ordered_json wan_json(const ThresholdsReport& r) {
  if (!r.wan.applicable) return nullptr;
  nlohmann::ordered_json j;
  j["islands"] = m::wan_ring(r.scenario.cluster).islands;
  j["step_s"] = number(r.wan.rows[0].schedule.step_s);
  j["utilization"] = m::kUtilizationTargets;
  j["methods"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.wan.rows.size(); ++i) {
    const m::WanThresholdRow& row = r.wan.rows[i];
    nlohmann::ordered_json gbps = nlohmann::ordered_json::array(), grid = nlohmann::ordered_json::array();
    for (const double b : row.bytes_per_s) {
      gbps.push_back(number(m::bytes_per_s_to_gbit_per_s(b)));
      grid.push_back(number(m::snap_up_to_grid_gbps(m::bytes_per_s_to_gbit_per_s(b))));
    }
    j["methods"].push_back({{"method", kMethodNames[i]},
                            {"inner_steps", row.schedule.inner_steps},
                            {"fragments", row.schedule.fragments},
                            {"overlap_steps", row.schedule.overlap_steps},
                            {"payload_gb", number(row.schedule.payload_bytes / 1e9)},
                            {"gbps", gbps},
                            {"published_grid_gbps", grid},
                            {"peak_gbps", number(m::bytes_per_s_to_gbit_per_s(row.peak_bytes_per_s))}});
  }
  return j;
}

}  // namespace

ThresholdsReport compute_thresholds(const LoadedScenario& loaded, double comm_share) {
  if (!(comm_share > 0 && comm_share < 1))
    throw InputError(fmt::format("shardmeter thresholds: --comm-share {} is not a fraction in (0, 1)", comm_share));
  ThresholdsReport r;
  r.name = loaded.name;
  r.comm_share = comm_share;
  r.scenario = loaded.scenario;
  r.estimate = m::evaluate(loaded.scenario);
  r.bandwidth = m::min_bandwidth_for_compute_bound(loaded.scenario, comm_share);
  r.at_floor = m::evaluate(m::with_bandwidth_factor(loaded.scenario, r.bandwidth.floor_factor));
  r.tokens = m::tokens_per_gpu_thresholds(loaded.scenario, 4096, comm_share);
  r.max_seq_len = m::max_sequence_length(loaded.scenario, r.seq_granularity);
  r.wan = m::wan_threshold_table(loaded.scenario, r.estimate);
  return r;
}

std::string format_thresholds(const ThresholdsReport& r) {
  const m::Scenario& s = r.scenario;
  const m::IslandSpec& island = s.cluster.islands[0];
  const m::Estimate& e = r.estimate;
  std::string out = fmt::format("shardmeter thresholds: {}\n", r.name);
  out += fmt::format("  compute-bound = exposed communication at most {} of the step\n\n", percent(r.comm_share));

  const auto row = [&](std::string_view label, const std::string& value) { out += fmt::format("{:<34}{}\n", label, value); };
  row("Plan as given", fmt::format("{}, step {}, exposed communication {} ({})",
                                   e.feasible ? "fits" : std::string(model::enum_name(e.reject_reason)),
                                   seconds(e.step_time_s), percent(m::exposed_comm_share(e)), remaining_comm(e)));
  row("", fmt::format("memory {:.1f} of {:.1f} GB per GPU; micro-batch {} x seq {} / cp {} = {} tokens per GPU",
                      e.memory_per_gpu_bytes / 1e9, e.memory_capacity_bytes / 1e9, s.training.micro_batch,
                      s.model.seq_len, s.plan.cp,
                      grouped(static_cast<double>(s.training.micro_batch) * s.model.seq_len / s.plan.cp)));

  out += "\nNetwork bandwidth (node network scaled alike on every island; NVLink and WAN links unchanged)\n";
  row("  node network now", fmt::format("{} per node ({} per GPU)", gbit(island.node_network.bytes_per_s),
                                        gbyte(island.node_network.bytes_per_s / std::max(1, island.gpus_per_node))));
  const m::BandwidthThreshold& b = r.bandwidth;
  if (!b.reachable) {
    row("  minimum for compute-bound",
        fmt::format("unreachable: from {:g}x to {:g}x the node network at least {} stays exposed (at {:.3g}x: {})",
                    m::kMinBandwidthFactor, m::kMaxBandwidthFactor, percent(b.comm_share_floor), b.floor_factor,
                    remaining_comm(r.at_floor)));
  } else if (b.any_bandwidth) {
    row("  minimum for compute-bound", fmt::format("any: compute-bound even at {:g}x the node network",
                                                   m::kMinBandwidthFactor));
  } else {
    row("  minimum for compute-bound", fmt::format("{} per node ({} per GPU), {:.3g}x now", gbit(b.node_network_bytes_per_s),
                                                   gbyte(b.per_gpu_bytes_per_s), b.factor));
  }

  out += "\nMemory (micro-batches per replica per step kept; global batch scales with the micro-batch)\n";
  const m::TokensThreshold& t = r.tokens;
  if (t.max_micro_batch == 0) {
    row("  largest micro-batch that fits", "none: micro-batch 1 does not fit");
  } else {
    row("  largest micro-batch that fits", fmt::format("{} = {} tokens per GPU (micro-batch x seq / cp)", t.max_micro_batch,
                                                       grouped(t.max_tokens_per_gpu)));
  }
  row("  compute-bound configuration",
      t.compute_bound_exists
          ? fmt::format("exists: from micro-batch {} ({} tokens per GPU) at the current bandwidth",
                        t.min_compute_bound_micro_batch,
                        grouped(static_cast<double>(t.min_compute_bound_micro_batch) * s.model.seq_len / s.plan.cp))
          : std::string("none: no micro-batch that fits is compute-bound at the current bandwidth"));
  row("  longest sequence that fits",
      r.max_seq_len > 0 ? fmt::format("{} tokens (multiples of {}, at micro-batch {})", grouped(r.max_seq_len),
                                      r.seq_granularity, s.training.micro_batch)
                        : std::string("none"));
  format_wan_table(out, r);
  return out;
}

std::string thresholds_json(const ThresholdsReport& r) {
  const m::Scenario& s = r.scenario;
  const m::IslandSpec& island = s.cluster.islands[0];
  nlohmann::ordered_json j;
  j["name"] = r.name;
  j["comm_share_criterion"] = r.comm_share;
  j["feasible"] = r.estimate.feasible;
  j["reject_reason"] = std::string(model::enum_name(r.estimate.reject_reason));
  j["step_time_s"] = number(r.estimate.step_time_s);
  j["exposed_comm_fraction"] = number(m::exposed_comm_share(r.estimate));
  j["node_network_gbps"] = number(island.node_network.bytes_per_s * kBitsPerByte / 1e9);
  const m::BandwidthThreshold& b = r.bandwidth;
  j["bandwidth"] = {
      {"reachable", b.reachable},
      {"any_bandwidth", b.any_bandwidth},
      {"min_node_network_gbps", b.reachable ? number(b.node_network_bytes_per_s * kBitsPerByte / 1e9) : nullptr},
      {"min_per_gpu_gb_per_s", b.reachable ? number(b.per_gpu_bytes_per_s / 1e9) : nullptr},
      {"factor", b.reachable ? number(b.factor) : nullptr},
      {"comm_share_at_current", number(b.comm_share_at_current)},
      {"comm_share_floor", number(b.comm_share_floor)},
      {"floor_factor", number(b.floor_factor)},
  };
  const m::TokensThreshold& t = r.tokens;
  j["tokens"] = {
      {"max_micro_batch", t.max_micro_batch},
      {"max_tokens_per_gpu", number(t.max_tokens_per_gpu)},
      {"compute_bound_exists", t.compute_bound_exists},
      {"min_compute_bound_micro_batch", t.compute_bound_exists ? nlohmann::ordered_json(t.min_compute_bound_micro_batch)
                                                               : nlohmann::ordered_json(nullptr)},
  };
  j["max_seq_len"] = r.max_seq_len;
  j["seq_granularity"] = r.seq_granularity;
  j["wan_peak_gbps"] = number(m::bytes_per_s_to_gbit_per_s(r.estimate.wan_peak_bytes_per_s));
  j["wan_thresholds"] = wan_json(r);
  return results::json_text(j);
}

}  // namespace shardmeter::cli
