#include "src/text/search_summary.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "src/text/text_format.hpp"

namespace shardmeter::cli {

namespace {

struct ReasonText {
  std::string_view name;
  std::string_view text;
};

// clang-format off
constexpr std::array kReasons = {
  ReasonText{"parallel_degrees_do_not_divide_gpus", "tp x cp x pp does not divide an island's GPUs"},
  ReasonText{"heads_not_divisible_by_tp", "tp does not divide the attention heads"},
  ReasonText{"kv_heads_not_divisible_by_tp", "tp does not divide the key/value heads"},
  ReasonText{"ffn_not_divisible_by_tp", "tp does not divide ffn_hidden"},
  ReasonText{"layers_not_divisible_by_pipeline", "more pipeline stages (pp x interleave) than layers"},
  ReasonText{"pipeline_split_invalid", "the first/last stage layers or the embedding/head weights cannot split the layers"},
  ReasonText{"seq_not_divisible_by_cp", "2 x cp does not divide seq_len"},
  ReasonText{"global_batch_not_divisible", "global_batch is not a multiple of micro_batch x data-parallel degree"},
  ReasonText{"interleave_needs_pipeline", "interleave needs pp > 1 and a micro-batch count per step divisible by pp"},
  ReasonText{"shard_group_invalid", "the hsdp shard_group does not divide the data-parallel GPUs"},
  ReasonText{"island_not_whole_nodes", "an island is not a whole number of nodes"},
  ReasonText{"pipeline_exceeds_islands", "pp is not a multiple of the islands it spans (pp_across_islands)"},
  ReasonText{"heterogeneous_plan_invalid", "the plan cannot run on islands of different GPU types"},
  ReasonText{"diloco_needs_islands", "diloco needs at least two islands"},
  ReasonText{"wan_link_missing", "several islands but no cluster.wan link between them"},
  ReasonText{"experts_not_divisible_by_ep", "ep does not divide the routed experts (or ep/etp > 1 on a dense model)"},
  ReasonText{"expert_folding_does_not_divide_gpus", "etp x ep does not divide an island's GPUs per pipeline stage"},
  ReasonText{"fp8_not_supported", "precision fp8 on a GPU without fp8 tensor cores (fp8_tflops 0), or fp8 settings "
                                  "the stack does not run"},
  ReasonText{"out_of_memory", "does not fit in GPU memory (try fsdp/hsdp, more tp or pp, full recompute, a smaller "
                              "micro_batch, or GPUs with more HBM)"},
  ReasonText{"goodput_below_floor", "a synchronous job whose failures and spot preemptions leave it under 50 % goodput "
                                    "(docs/model.md §10.4: fewer GPUs, no spot, or diloco)"},
  ReasonText{"offload_not_supported", "activation or optimizer offload the stack refuses (docs/model.md §7.15, §7.16), "
                                      "or a GPU without host_link_gbps"},
  ReasonText{"non_finite_objective", "an objective is not a finite number (is training.tokens set?)"},
  ReasonText{"bound_pruned", "dominated by a feasible plan even at its best possible throughput and cost (pruned by "
                             "bounds, not estimated)"},
};
// clang-format on

std::string doc_value(const SearchJobResult& job, const std::string& key) {
  return scalar_at(job.scenario.doc, key).value_or("?");
}

void row(std::string& out, std::string_view label, const std::string& value) {
  out += fmt::format("{:<22}{}\n", label, value);
}

std::vector<std::pair<std::string, std::uint64_t>> by_count(const search::SearchCounts& c) {
  auto reasons = c.rejections();
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return reasons;
}

double share(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// One line on what a rejection reason means ("does not fit in GPU memory; try ...").
std::string describe_rejection(const SearchJobResult& job, const std::string& reason) {
  for (const ReasonText& r : kReasons)
    if (r.name == reason) return std::string(r.text);
  if (reason.starts_with("gpu_quota:")) {
    const std::string gpu = reason.substr(std::string_view("gpu_quota:").size());
    return fmt::format("uses more {} GPUs than search.constraints.gpu_quota allows ({})", gpu,
                       doc_value(job, "search.constraints.gpu_quota." + gpu));
  }
  if (reason.starts_with("max_") || reason.starts_with("min_")) {
    const std::string metric = reason.substr(4);
    return fmt::format("{} is {} the limit search.constraints.{} = {}", metric,
                       reason.starts_with("max_") ? "above" : "below", reason, doc_value(job, "search.constraints." + reason));
  }
  return "";
}

}  // namespace

std::string format_search_summary(const SearchJobResult& job, bool interrupted) {
  const search::SearchResult& r = job.result;
  const search::SearchCounts& c = r.counts;
  std::string out;
  row(out, "Search space", fmt::format("{} candidates over {} axes", grouped(static_cast<double>(c.space_size)),
                                       job.info.axes.size()));
  // "auto chose exhaustive: ..." explains itself; a requested engine only needs saying so.
  const bool automatic = r.method_reason.starts_with("auto");
  const std::string seed = r.method == search::Method::anneal ? fmt::format("seed {}", r.seed) : "";
  row(out, "Method", std::string(search::to_string(r.method)) +
                         (automatic ? (seed.empty() ? "" : " (" + seed + ")")
                                    : " (requested" + (seed.empty() ? "" : ", " + seed) + ")"));
  if (automatic) row(out, "", fmt::format("{} (decided in {})", r.method_reason, duration(r.method_decision_s)));
  row(out, "Visited", fmt::format("{} candidates ({} of the space); {} model estimates{}",
                                   grouped(static_cast<double>(c.visited)), percent(share(c.visited, c.space_size)),
                                   grouped(static_cast<double>(c.estimated)),
                                   c.memory_bound > 0
                                       ? fmt::format(" (and {} out of memory on model states alone, not estimated)",
                                                     grouped(static_cast<double>(c.memory_bound)))
                                       : ""));
  if (c.estimated_counts)
    row(out, "", "every count here is an estimate of distinct candidates (HyperLogLog, about 1 %): this annealing "
                 "run passed its exact-count limit (docs/search.md)");
  if (c.bound_pruned > 0)
    row(out, "", fmt::format("{} more not estimated: their bounds cannot meet a constraint or are dominated "
                             "(pruned by bounds)",
                             grouped(static_cast<double>(c.bound_pruned))));
  row(out, "Rejected", fmt::format("{} ({}){}", grouped(static_cast<double>(c.rejected())),
                                   percent(share(c.rejected(), c.visited)),
                                   c.pruned > 0 ? fmt::format(", {} of them by whole blocks (pruned)",
                                                              grouped(static_cast<double>(c.pruned)))
                                                : ""));
  const auto reasons = by_count(c);
  std::size_t name_width = 0;
  for (const auto& [name, n] : reasons) name_width = std::max(name_width, name.size());
  for (const auto& [name, n] : reasons)
    out += fmt::format("  {:<{}}  {:>12}  {:>7}  {}\n", name, name_width, grouped(static_cast<double>(n)),
                       percent(share(n, c.visited)), describe_rejection(job, name));
  row(out, "Feasible", fmt::format("{} ({})", grouped(static_cast<double>(c.feasible)), percent(share(c.feasible, c.visited))));
  row(out, "On the front", std::to_string(r.front.size()));
  row(out, "Elapsed", fmt::format("{}, {} candidates/s on {} thread{}{}", duration(r.elapsed_s),
                                  count_si(r.candidates_per_s), r.threads, r.threads == 1 ? "" : "s",
                                  r.ranks > 1 ? fmt::format(" in each of {} MPI ranks", r.ranks) : ""));
  if (!r.complete)
    row(out, "Complete", interrupted ? "no: interrupted (Ctrl-C or SIGTERM); the front is what was found so far"
                                     : "no: stopped by the time limit; the front is what was found so far");
  return out;
}

std::string explain_empty_front(const SearchJobResult& job) {
  const search::SearchCounts& c = job.result.counts;
  if (!job.result.front.empty()) return "";
  if (c.visited == 0) return "No candidate was visited (the search stopped before it started).\n";
  std::string out = fmt::format("No feasible plan: all {} candidates visited were rejected. Top reasons:\n",
                                grouped(static_cast<double>(c.visited)));
  const auto reasons = by_count(c);
  for (std::size_t i = 0; i < reasons.size() && i < 3; ++i)
    out += fmt::format("  {:>7}  {}: {}\n", percent(share(reasons[i].second, c.visited)), reasons[i].first,
                       describe_rejection(job, reasons[i].first));
  // Rejections are counted at the first stage that fails, so the constraints (checked last) only see the
  // candidates that got furthest: say which constraints stopped those, however few they are.
  std::uint64_t fitted = 0;
  std::string limits;
  for (const auto& [name, n] : reasons)
    if (name.starts_with("max_") || name.starts_with("min_")) {
      fitted += n;
      limits += fmt::format("{}{} {}", limits.empty() ? "" : ", ", name, grouped(static_cast<double>(n)));
    }
  if (fitted > 0)
    out += fmt::format("The {} candidates that fit in memory all broke a constraint: {}.\n",
                       grouped(static_cast<double>(fitted)), limits);
  out += "Widen the axes (more GPUs, tp or pp values, sharding, recompute) or relax search.constraints.\n";
  return out;
}

}  // namespace shardmeter::cli
