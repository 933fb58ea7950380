#include "src/validation/validation_report.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "results/markup.hpp"

namespace shardmeter::cli {

namespace {

std::string format_seconds(double s) { return s >= 100 ? fmt::format("{:.1f}", s) : fmt::format("{:.3f}", s); }

std::string row_note(const ValidationRun& r) {
  if (!r.convertible) return "source's FLOP convention unknown: not scored";
  if (r.rejected != model::RejectReason::none) return "inconsistent plan: not scored";
  std::string note;
  if (!r.predicted_fits)
    note = fmt::format("model: does not fit in memory ({:.1f} of {:.1f} GB)", r.predicted_memory_bytes / 1e9,
                       r.memory_capacity_bytes / 1e9);
  if (r.use == RowUse::reference) note += note.empty() ? "reference: not scored" : "; reference: not scored";
  return note;
}

std::string summary_line(const std::string& label, const ErrorSummary& s) {
  return fmt::format("  {:<28} {:>4} runs  MAPE {:5.1f}%  worst {:5.1f}%  oom_false {}\n", label, s.runs, s.mape,
                     s.worst, s.oom_false);
}

// The rows each summary is taken over, gathered once for the text and the JSON report.
struct Groups {
  std::map<std::string, std::vector<const ValidationRun*>> by_source;
  std::map<std::string, std::vector<const ValidationRun*>> by_use;
  std::vector<const ValidationRun*> scored, korthikanti, fully_specified;
  std::map<std::string, std::vector<const ValidationRun*>> memory_by_source;  // rows with a published peak memory
  std::vector<const ValidationRun*> memory;
};

Groups group_runs(const std::vector<ValidationRun>& runs) {
  Groups g;
  for (const ValidationRun& r : runs) {
    const bool comparable = r.convertible && r.rejected == model::RejectReason::none;
    if (r.scored()) {
      g.by_source[r.source_group].push_back(&r);
      g.scored.push_back(&r);
      if (r.fully_specified) g.fully_specified.push_back(&r);
    }
    if (comparable) g.by_use[std::string(to_string(r.use))].push_back(&r);
    if (comparable && r.source_group == "korthikanti-table5") g.korthikanti.push_back(&r);
    if (r.memory_scored()) {
      g.memory_by_source[r.source_group].push_back(&r);
      g.memory.push_back(&r);
    }
  }
  return g;
}

// One line per row: what was published, the measured and the predicted step time, the error.
std::string row_lines(const std::vector<ValidationRun>& runs) {
  std::string text;
  text += fmt::format("{:<34} {:<9} {:>12} {:<18} {:>10} {:>10} {:>8}  {}\n", "run", "use", "published",
                      "FLOP convention", "measured_s", "model_s", "error", "note");
  for (const ValidationRun& r : runs) {
    const std::string published = fmt::format("{:.6g} {}", r.published_value,
                                              r.metric == "seconds_per_iter" ? "s" :
                                              r.metric == "tflops_per_gpu" ? "TF/GPU" :
                                              r.metric == "mfu" ? "% MFU" : r.metric == "tokens_per_s" ? "tok/s" : "tok/s/GPU");
    const bool comparable = r.convertible && r.rejected == model::RejectReason::none;
    text += fmt::format("{:<34} {:<9} {:>12} {:<18} {:>10} {:>10} {:>8}  {}\n", r.id, to_string(r.use), published,
                        r.flop_convention == "none" ? "- (time/tokens)" : r.flop_convention,
                        r.convertible ? format_seconds(r.measured_step_s) : "-",
                        comparable ? format_seconds(r.predicted_step_s) : "-",
                        comparable ? fmt::format("{:+.1f}%", 100 * r.error()) : "-", row_note(r));
  }
  return text;
}

nlohmann::json rows_json(const std::vector<ValidationRun>& runs) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ValidationRun& r : runs) {
    const bool comparable = r.convertible && r.rejected == model::RejectReason::none;
    nlohmann::json row = {{"id", r.id}, {"source", r.source_group}, {"use", std::string(to_string(r.use))},
                          {"scored", r.scored()}};
    row["measured"] = r.convertible ? nlohmann::json(r.measured_step_s) : nlohmann::json();
    row["predicted"] = comparable ? nlohmann::json(r.predicted_step_s) : nlohmann::json();
    row["error_pct"] = comparable ? nlohmann::json(100 * r.error()) : nlohmann::json();
    row["fits"] = r.predicted_fits;  // false: the model calls a run that ran out of memory
    row["memory_gb"] = r.rejected == model::RejectReason::none ? nlohmann::json(r.predicted_memory_bytes / 1e9)
                                                                : nlohmann::json();
    row["capacity_gb"] = r.memory_capacity_bytes / 1e9;
    row["published_memory_gb"] = r.published_memory_bytes > 0 ? nlohmann::json(r.published_memory_bytes / 1e9)
                                                                : nlohmann::json();
    row["predicted_reserved_gb"] = r.memory_scored() ? nlohmann::json(r.predicted_reserved_bytes / 1e9) : nlohmann::json();
    row["memory_error_pct"] = r.memory_scored() ? nlohmann::json(100 * r.memory_error()) : nlohmann::json();
    const model::MemoryBreakdown& m = r.memory;
    row["memory_by_class_gb"] = {{"weights", m.weights_bytes / 1e9},      {"gradients", m.gradients_bytes / 1e9},
                                 {"optimizer", m.optimizer_bytes / 1e9},  {"activations", m.activations_bytes / 1e9},
                                 {"fsdp_buffers", m.fsdp_buffers_bytes / 1e9}, {"logits", m.logits_bytes / 1e9},
                                 {"runtime", m.runtime_overhead_bytes / 1e9}, {"experts", m.expert_states_bytes / 1e9}};
    rows.push_back(row);
  }
  return rows;
}

nlohmann::json groups_json(const std::map<std::string, std::vector<const ValidationRun*>>& by_source) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [source, rows] : by_source) {
    const ErrorSummary e = summarize(rows);
    groups.push_back({{"source", source}, {"runs", e.runs}, {"mape_pct", e.mape}, {"worst_pct", e.worst},
                      {"oom_false", e.oom_false}});
  }
  return groups;
}

// A table scored apart (held-out, small-model sweep): {rows, groups, mape_pct, worst_pct, runs, oom_false}.
nlohmann::json section_json(const std::vector<ValidationRun>& runs) {
  const Groups g = group_runs(runs);
  const ErrorSummary e = summarize(g.scored);
  return {{"rows", rows_json(runs)}, {"groups", groups_json(g.by_source)}, {"mape_pct", e.mape},
          {"worst_pct", e.worst}, {"runs", e.runs}, {"oom_false", e.oom_false}};
}

}  // namespace

std::string format_validation_report(const std::vector<ValidationRun>& runs) {
  std::string text = row_lines(runs);
  Groups g = group_runs(runs);
  auto& [by_source, by_use, scored, korthikanti, fully_specified, memory_by_source, memory] = g;
  text += "\nMAPE per source (scored rows: calibrate + holdout):\n";
  for (const auto& [source, rows] : by_source) text += summary_line(source, summarize(rows));
  text += "\nMAPE per use:\n";
  for (const char* use : {"calibrate", "holdout", "reference"})
    if (by_use.count(use)) text += summary_line(use, summarize(by_use[use]));
  text += summary_line("fully specified (scored)", summarize(fully_specified));
  if (!korthikanti.empty()) {
    const ErrorSummary k = summarize(korthikanti);
    text += fmt::format(
        "\nKorthikanti et al. 2022 Table 5 ({} end-to-end rows): average error {:.2f}%, worst {:.1f}% "
        "(best published analytical model, Calculon: 3.65% average, 8.9% worst)\n",
        k.runs, k.mape, k.worst);
  }
  if (!memory.empty()) {
    text += "\nPeak memory per GPU against the published figure (rows whose source publishes it; tensors + allocator "
            "reserve against the allocator's peak reserved bytes):\n";
    for (const auto& [source, rows] : memory_by_source) text += summary_line(source, summarize_memory(rows));
    const ErrorSummary m = summarize_memory(memory);
    text += fmt::format("memory MAPE {:.1f}% over {} runs (worst {:.1f}%)\n", m.mape, m.runs, m.worst);
  }
  const ErrorSummary all = summarize(scored);
  text += fmt::format("\nout of memory by the model (oom_false): {} of {} scored runs\n", all.oom_false, all.runs);
  text += fmt::format("\noverall MAPE {:.1f}% over {} runs\n", all.mape, all.runs);
  return text;
}

std::string validation_json(const std::vector<ValidationRun>& runs, const std::vector<ValidationRun>* heldout,
                            const std::string& decentralized, const std::string& nccl_tests,
                            const std::vector<ValidationRun>* small_model) {
  nlohmann::json j;
  j["rows"] = rows_json(runs);
  const Groups g = group_runs(runs);
  j["groups"] = groups_json(g.by_source);
  const ErrorSummary all = summarize(g.scored);
  j["overall_mape_pct"] = all.mape;
  j["overall_runs"] = all.runs;
  j["overall_oom_false"] = all.oom_false;
  nlohmann::json memory_groups = nlohmann::json::array();
  for (const auto& [source, rows] : g.memory_by_source) {
    const ErrorSummary e = summarize_memory(rows);
    memory_groups.push_back({{"source", source}, {"runs", e.runs}, {"mape_pct", e.mape}, {"worst_pct", e.worst}});
  }
  const ErrorSummary mem = summarize_memory(g.memory);
  j["memory"] = {{"groups", memory_groups}, {"mape_pct", mem.mape}, {"worst_pct", mem.worst}, {"runs", mem.runs}};
  if (heldout) j["heldout"] = section_json(*heldout);
  if (small_model) j["small_model"] = section_json(*small_model);
  if (!decentralized.empty()) j["decentralized"] = nlohmann::json::parse(decentralized);
  if (!nccl_tests.empty()) j["nccl_tests"] = nlohmann::json::parse(nccl_tests);
  return results::json_text(j);
}

namespace {

// A table scored apart from the calibration table: per-row errors, MAPE per source and the closing line
// "<label> MAPE X.X% over N runs (worst W%), oom_false K".
std::string section_report(const std::vector<ValidationRun>& runs, const std::string& heading,
                           const std::string& by_source, const std::string& label) {
  std::string text = heading + "\n\n";
  text += row_lines(runs);
  const Groups g = group_runs(runs);
  text += "\n" + by_source + ":\n";
  for (const auto& [source, rows] : g.by_source) text += summary_line(source, summarize(rows));
  const ErrorSummary all = summarize(g.scored);
  text += fmt::format("\n{} MAPE {:.1f}% over {} runs (worst {:.1f}%), oom_false {}\n", label, all.mape, all.runs,
                      all.worst, all.oom_false);
  return text;
}

}  // namespace

std::string format_heldout_report(const std::vector<ValidationRun>& runs) {
  return section_report(
      runs, "Held-out published runs (validation/heldout_runs.csv: not in the calibration table, never fitted):",
      "Held-out runs by source", "held-out");
}

std::string format_small_model_report(const std::vector<ValidationRun>& runs) {
  return section_report(runs,
                        "Small-model sweep (validation/small_model_runs.csv: the Ultra-Scale Playbook's single-node 1B, "
                        "3B and 8B runs; never fitted, not in the held-out figure):",
                        "Small-model sweep runs by source", "small-model sweep");
}

}  // namespace shardmeter::cli
