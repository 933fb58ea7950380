#include "results/report/report_markdown.hpp"

#include <cmath>
#include <algorithm>

#include "results/front/front_picks.hpp"
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

std::string plan_table(const ReportModel& m, const std::vector<ReportRow>& rows, const std::vector<std::size_t>& which) {
  const bool extra = m.axes.speed.name() != "tokens_per_s" && m.axes.speed.name() != "wall_clock_days";
  std::vector<std::string> header{"#", "GPU type", "islands x GPUs", "tp / pp / cp", "sharding", "micro / global batch",
                                  "recompute", "sync", c(m.cost_title), "throughput (tokens/s)"};
  if (extra) header.push_back(c(m.speed_title));
  for (const char* h : {"wall-clock (days)", "MFU", "memory headroom (GB)", "bottleneck"}) header.emplace_back(h);
  std::string out = row_of(header);
  out += extra ? "|---|---|---|---|---|---|---|---|--:|--:|--:|--:|--:|--:|---|\n"
               : "|---|---|---|---|---|---|---|---|--:|--:|--:|--:|--:|---|\n";
  for (const std::size_t i : which) {
    const ReportRow& r = rows[i];
    std::string id = std::to_string(row_number(r.row()));
    for (const std::string& p : r.picks) id += " " + p;
    if (r.unpickable) id += " not feasible";
    if (r.warning_bits() != 0) id += " !";   // the warning lines above the tables name them
    std::vector<std::string> cells{c(id), c(r.gpu() + (r.uncalibrated ? " (uncalibrated)" : "")), c(r.islands()),
                                   c(r.parallel()), c(r.sharding()), c(r.batch()), c(r.recompute()), c(r.sync()),
                                   c(cost_text(m.axes, r.cost)), c(format_si(r.tokens_per_s()))};
    if (extra) cells.push_back(c(format_si(r.speed)));
    for (const std::string& v : {format_fixed(r.wall_clock_days(), 1), format_percent(r.mfu()),
                                 format_fixed(r.memory_headroom_gb(), 1), r.bottleneck()})
      cells.push_back(c(v));
    out += row_of(cells);
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
  const ReportRow& r = m.rows[row];
  return "- **" + std::string(what) + "** (row " + std::to_string(row_number(row)) + "): " +
         c(cost_text(m.axes, r.cost)) + ", " + c(speed_text(m.axes, r.speed)) + ", " +
         c(format_fixed(r.wall_clock_days(), 1)) + " days, MFU " + c(format_percent(r.mfu())) +
         (std::isfinite(r.usd_per_effective_million_tokens())
              ? ", " + c(format_usd(r.usd_per_effective_million_tokens())) + " per million effective tokens"
              : std::string()) +
         " -- " + c(r.summary()) + (r.uncalibrated ? " (uncalibrated GPU type)" : "") +
         (r.warning_bits() != 0 ? " (warnings: " + c(warning_names(r.warning_bits())) + ")" : std::string()) + "\n";
}

}  // namespace

std::string render_report_markdown(const ReportModel& m) {
  std::string out = "# " + c(m.title) + "\n\n";
  out += (m.sweep ? "Sweep file " : "Front ") + code(m.front_label) + ": " + c(m.what);
  if (m.diff) out += ", compared with " + code(m.baseline_label);
  out += ".\n\n**" + c(m.recommendation) + "**\n\n";
  for (const std::string& w : m.warnings) out += "> " + c(w) + "\n\n";
  out += facts(m.job) + "\n";
  if (m.picks)
    out += pick_line(m, "cheapest", m.picks->cheapest) + pick_line(m, "knee", m.picks->knee) +
           pick_line(m, "fastest", m.picks->fastest) + "\n";
  out += std::string(kKneeDefinition) + "\n\n## " + std::string(m.sweep ? "Sweep points" : "Plans on the front") +
         "\n\n";
  std::vector<std::size_t> all(m.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  out += plan_table(m, m.rows, all) + "\n";

  if (m.diff) {
    const FrontDiff& d = *m.diff;
    out += "## Changes since the baseline\n\n";
    if (m.baseline_of_other_scenario) out += "> The baseline is another scenario's front, compared on request (--force).\n\n";
    out += "Baseline " + code(m.baseline_label) + " (" + std::to_string(m.baseline_rows.size()) + " rows). Why it differs:\n\n";
    for (const std::string& why : m.baseline_differences) out += "- " + c(why) + "\n";
    out += "\nCheapest cost " + (d.cheapest_cost_change ? format_change(*d.cheapest_cost_change) : "n/a") +
           ", fastest " + c(std::string(m.axes.speed.name())) + " " +
           (d.fastest_speed_change ? format_change(*d.fastest_speed_change) : "n/a") + "; " +
           std::to_string(d.joined.size()) + " joined, " + std::to_string(d.left.size()) + " left, " +
           std::to_string(d.kept.size()) + " stayed.\n\n";
    out += "### Cost at matched speed\n\nBaseline cost: the cheapest baseline plan that is at least as fast (none: no "
           "baseline plan was that fast).\n\n";
    out += row_of({"#", "plan", c(m.speed_title), c(m.cost_title), "baseline cost", "change"});
    out += "|---|---|--:|--:|--:|--:|\n";
    for (const MatchedCost& mc : d.matched) {
      const auto change = mc.relative_change();
      out += row_of({std::to_string(row_number(mc.row)), c(m.rows[mc.row].summary()), c(format_si(mc.speed)),
                     c(cost_text(m.axes, mc.cost_usd)),
                     c(mc.baseline_cost_usd ? cost_text(m.axes, *mc.baseline_cost_usd) : "none"),
                     c(change ? format_change(*change) : "n/a")});
    }
    out += "\n### Joined the front (" + std::to_string(d.joined.size()) + ")\n\n";
    out += d.joined.empty() ? "None.\n" : plan_table(m, m.rows, d.joined);
    out += "\n### Left the front (" + std::to_string(d.left.size()) + ")\n\n";
    out += d.left.empty() ? "None.\n" : plan_table(m, m.baseline_rows, d.left);
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
