#include "results/report/report_markdown.hpp"

#include <cmath>

#include <algorithm>

#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

std::string c(std::string_view s) { return escape_markdown_cell(s); }
// Inline code, or escaped text when the text holds a backtick (which would end the code span).
std::string code(const std::string& s) { return s.find('`') == std::string::npos ? "`" + s + "`" : c(s); }

std::string row_of(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& cell : cells) out += " " + cell + " |";
  return out + "\n";
}

std::string plan_table(const std::vector<PlanRow>& rows, const std::vector<std::size_t>& which) {
  std::string out = row_of({"#", "GPU type", "islands x GPUs", "tp / pp / cp", "sharding", "micro / global batch",
                            "recompute", "sync", "cost (USD)", "throughput (tokens/s)", "wall-clock (days)", "MFU",
                            "memory headroom (GB)", "bottleneck"});
  out += "|---|---|---|---|---|---|---|---|--:|--:|--:|--:|--:|---|\n";
  for (const std::size_t i : which) {
    const PlanRow& r = rows[i];
    std::string id = std::to_string(r.row);
    for (const std::string& p : r.picks) id += " " + p;
    out += row_of({c(id), c(r.gpu), c(r.islands), c(r.parallel), c(r.sharding), c(r.batch), c(r.recompute), c(r.sync),
                   c(format_usd(r.cost_usd)), c(format_si(r.tokens_per_s)), c(format_fixed(r.wall_clock_days, 1)),
                   c(format_percent(r.mfu)), c(format_fixed(r.memory_headroom_gb, 1)), c(r.bottleneck)});
  }
  return out;
}

std::string facts(const std::vector<Fact>& list) {
  std::string out = "| | |\n|---|---|\n";
  for (const Fact& f : list) out += row_of({c(f.label), c(f.value)});
  return out;
}

// A code fence longer than any run of backticks in the text, so the text cannot close it.
std::string fence_for(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (const char ch : text) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string pick_line(const ReportModel& m, const char* what, std::size_t row) {
  const PlanRow& r = m.rows[row];
  return "- **" + std::string(what) + "** (row " + std::to_string(row) + "): " + c(format_usd(r.cost_usd)) + ", " +
         c(format_si(r.tokens_per_s)) + " tokens/s, " + c(format_fixed(r.wall_clock_days, 1)) + " days, MFU " +
         c(format_percent(r.mfu)) +
         (std::isfinite(r.usd_per_effective_million_tokens)
              ? ", " + c(format_usd(r.usd_per_effective_million_tokens)) + " per million effective tokens"
              : std::string()) +
         " -- " + c(r.summary) + "\n";
}

}  // namespace

std::string render_report_markdown(const ReportModel& m) {
  std::string out = "# " + c(m.title) + "\n\n";
  out += "Front " + code(m.front_label) + ": " + std::to_string(m.rows.size()) + " plans on the cost/throughput Pareto front";
  if (m.diff) out += ", compared with " + code(m.baseline_label);
  out += ".\n\n";
  if (!m.complete) out += "> **The search did not complete**: the front may miss plans.\n\n";
  if (m.picks)
    out += pick_line(m, "cheapest", m.picks->cheapest) + pick_line(m, "knee", m.picks->knee) +
           pick_line(m, "fastest", m.picks->fastest) + "\n";
  else
    out += "The front is empty: no plan in the search space was feasible.\n\n";
  out += "The knee is the plan farthest from the line between the cheapest and the fastest plan in normalised log "
         "space.\n\n## Plans on the front\n\n";
  std::vector<std::size_t> all(m.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  out += plan_table(m.rows, all) + "\n";

  if (m.diff) {
    const FrontDiff& d = *m.diff;
    out += "## Changes since the baseline\n\n";
    out += "Baseline " + code(m.baseline_label) + " (" + std::to_string(m.baseline_rows.size()) + " plans). Cheapest cost " +
           (d.cheapest_cost_change ? format_change(*d.cheapest_cost_change) : "n/a") + ", fastest throughput " +
           (d.fastest_throughput_change ? format_change(*d.fastest_throughput_change) : "n/a") + "; " +
           std::to_string(d.joined.size()) + " joined, " + std::to_string(d.left.size()) + " left, " +
           std::to_string(d.kept.size()) + " stayed.\n\n";
    out += "### Cost at matched throughput\n\nBaseline cost: the cheapest baseline plan reaching at least the same "
           "throughput (none: no baseline plan was that fast).\n\n";
    out += row_of({"#", "plan", "throughput (tokens/s)", "cost (USD)", "baseline cost (USD)", "change"});
    out += "|---|---|--:|--:|--:|--:|\n";
    for (const MatchedCost& mc : d.matched) {
      const auto change = mc.relative_change();
      out += row_of({std::to_string(mc.row), c(m.rows[mc.row].summary), c(format_si(mc.tokens_per_s)),
                     c(format_usd(mc.cost_usd)), c(mc.baseline_cost_usd ? format_usd(*mc.baseline_cost_usd) : "none"),
                     c(change ? format_change(*change) : "n/a")});
    }
    out += "\n### Joined the front (" + std::to_string(d.joined.size()) + ")\n\n";
    out += d.joined.empty() ? "None.\n" : plan_table(m.rows, d.joined);
    out += "\n### Left the front (" + std::to_string(d.left.size()) + ")\n\n";
    out += d.left.empty() ? "None.\n" : plan_table(m.baseline_rows, d.left);
    out += "\n";
  }
  out += "## Provenance\n\n" + facts(m.provenance) + "\n";
  if (!m.rejections.empty()) out += "### Rejected candidates\n\n" + facts(m.rejections) + "\n";
  const std::string fence = fence_for(m.scenario_text);
  out += "## Scenario\n\n" + fence + "yaml\n" + m.scenario_text + (m.scenario_text.ends_with('\n') ? "" : "\n") +
         fence + "\n\n";
  out += "Generated by " + c(m.generator) + ".\n";
  return out;
}

}  // namespace shardmeter::results
