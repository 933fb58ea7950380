#include "results/report/report_html.hpp"

#include <cmath>
#include <fmt/format.h>

#include "results/front/front_picks.hpp"
#include "results/markup.hpp"
#include "results/report/report_plot.hpp"

namespace shardmeter::results {

namespace {

std::string e(std::string_view s) { return escape_xml(s); }

std::string td(std::string_view text, std::string_view cls = "") {
  return cls.empty() ? "<td>" + e(text) + "</td>" : "<td class=\"" + e(cls) + "\">" + e(text) + "</td>";
}

std::string swatch(const ReportModel& m, const std::string& gpu) {
  return "<span class=\"swatch\" style=\"background:" + e(gpu_color(m, gpu)) + "\"></span>" + e(gpu);
}

std::string badges(const ReportRow& r) {
  std::string out;
  for (const std::string& p : r.picks) out += "<span class=\"badge " + e(p) + "\">" + e(p) + "</span>";
  return out;
}

// The speed column when the picks do not use throughput or wall-clock, which every table shows anyway.
bool extra_speed(const ReportModel& m) {
  return m.axes.speed.name() != "tokens_per_s" && m.axes.speed.name() != "wall_clock_days";
}

std::string plan_header(const ReportModel& m) {
  return "<tr><th>#</th><th>GPU type</th><th>islands x GPUs</th><th>tp / pp / cp</th><th>sharding</th>"
         "<th>micro / global batch</th><th>recompute</th><th>sync</th><th class=\"num\">" + e(m.cost_title) + "</th>"
         "<th class=\"num\">throughput (tokens/s)</th>" +
         (extra_speed(m) ? "<th class=\"num\">" + e(m.speed_title) + "</th>" : std::string()) +
         "<th class=\"num\">wall-clock (days)</th><th class=\"num\">MFU</th>"
         "<th class=\"num\">memory headroom (GB)</th><th>bottleneck</th></tr>\n";
}

std::string plan_cells(const ReportModel& m, const ReportRow& r) {
  std::string gpu = swatch(m, r.gpu());
  if (r.uncalibrated) gpu += " <span class=\"uncalibrated\" title=\"uncalibrated GPU type\">uncalibrated</span>";
  return "<td>" + std::to_string(row_number(r.row())) + badges(r) +
         (r.unpickable ? "<span class=\"badge infeasible\" title=\"" + e(*r.unpickable) + "\">not feasible</span>"
                       : std::string()) +
         (r.warning_bits() != 0 ? "<span class=\"badge warned\" title=\"" + e(warning_names(r.warning_bits())) + "\">!</span>"
                              : std::string()) +
         "</td><td>" + gpu + "</td>" + td(r.islands()) + td(r.parallel()) + td(r.sharding()) + td(r.batch()) +
         td(r.recompute()) + td(r.sync()) + td(cost_text(m.axes, r.cost), "num") + td(format_si(r.tokens_per_s()), "num") +
         (extra_speed(m) ? td(format_si(r.speed), "num") : std::string()) +
         td(format_fixed(r.wall_clock_days(), 1), "num") + td(format_percent(r.mfu()), "num") +
         td(format_fixed(r.memory_headroom_gb(), 1), "num") + td(r.bottleneck());
}

std::string plan_table(const ReportModel& m, const std::vector<ReportRow>& rows, const std::vector<std::size_t>& which) {
  std::string out = "<div class=\"scroll\"><table>\n<thead>" + plan_header(m) + "</thead>\n<tbody>\n";
  for (const std::size_t i : which) out += "<tr>" + plan_cells(m, rows[i]) + "</tr>\n";
  return out + "</tbody></table></div>\n";
}

std::string card(const ReportModel& m, const char* title, std::size_t row) {
  const ReportRow& r = m.rows[row];
  // The loss-equivalent cost (docs/model.md §9.4), when the file has it.
  const std::string effective = std::isfinite(r.usd_per_effective_million_tokens())
                                    ? ", " + format_usd(r.usd_per_effective_million_tokens()) + " per million effective tokens"
                                    : "";
  return fmt::format("<div class=\"card\"><h3>{} (row {})</h3><p class=\"big\">{}</p><p>{}, {} days, MFU {}{}</p>"
                     "<p class=\"plan\">{}{}{}</p></div>\n",
                     e(title), row_number(row), e(cost_text(m.axes, r.cost)), e(speed_text(m.axes, r.speed)),
                     e(format_fixed(r.wall_clock_days(), 1)), e(format_percent(r.mfu())), e(effective), e(r.summary()),
                     r.uncalibrated ? " <span class=\"uncalibrated\">uncalibrated GPU type</span>" : "",
                     r.warning_bits() != 0 ? " <span class=\"uncalibrated\">warnings: " + e(warning_names(r.warning_bits())) + "</span>"
                                         : std::string());
}

std::string change_class(std::optional<double> change, bool lower_is_better) {
  if (!change || *change == 0) return "num";
  return (*change < 0) == lower_is_better ? "num better" : "num worse";
}

std::string changes_section(const ReportModel& m) {
  const FrontDiff& d = *m.diff;
  std::string out = "<section id=\"changes\"><h2>Changes since the baseline</h2>\n";
  if (m.baseline_of_other_scenario)
    out += "<p class=\"warn\">The baseline is another scenario's front, compared on request (--force).</p>\n";
  out += "<p>Baseline: <code>" + e(m.baseline_label) + "</code>, " + std::to_string(m.baseline_rows.size()) +
         " rows. Why it differs:</p>\n<ul id=\"baseline-differences\">\n";
  for (const std::string& why : m.baseline_differences) out += "<li>" + e(why) + "</li>\n";
  out += "</ul>\n<p>Plans are matched by their plan columns (prices excluded). Cheapest cost " +
         e(d.cheapest_cost_change ? format_change(*d.cheapest_cost_change) : "n/a") + ", fastest " +
         e(m.axes.speed.name()) + " " + e(d.fastest_speed_change ? format_change(*d.fastest_speed_change) : "n/a") +
         "; " + std::to_string(d.joined.size()) + " joined, " + std::to_string(d.left.size()) + " left, " +
         std::to_string(d.kept.size()) + " stayed.</p>\n";
  out += "<h3>Cost at matched speed</h3>\n<p class=\"note\">For each plan on this front, the baseline cost is "
         "the cheapest baseline plan that is at least as fast (the baseline front's step function); \"none\" means "
         "no baseline plan was that fast.</p>\n";
  out += "<div class=\"scroll\"><table>\n<thead><tr><th>#</th><th>plan</th><th class=\"num\">" + e(m.speed_title) +
         "</th><th class=\"num\">" + e(m.cost_title) + "</th><th class=\"num\">baseline cost</th>"
         "<th class=\"num\">change</th></tr></thead>\n<tbody>\n";
  for (const MatchedCost& mc : d.matched) {
    const auto change = mc.relative_change();
    out += "<tr><td>" + std::to_string(row_number(mc.row)) + "</td>" + td(m.rows[mc.row].summary(), "wrap") +
           td(format_si(mc.speed), "num") + td(cost_text(m.axes, mc.cost_usd), "num") +
           td(mc.baseline_cost_usd ? cost_text(m.axes, *mc.baseline_cost_usd) : "none", "num") +
           td(change ? format_change(*change) : "n/a", change_class(change, true)) + "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  out += "<h3>Joined the front (" + std::to_string(d.joined.size()) + ")</h3>\n";
  out += d.joined.empty() ? "<p>None.</p>\n" : plan_table(m, m.rows, d.joined);
  out += "<h3>Left the front (" + std::to_string(d.left.size()) + ")</h3>\n";
  out += d.left.empty() ? "<p>None.</p>\n" : plan_table(m, m.baseline_rows, d.left);
  return out + "</section>\n";
}

std::string facts_table(const std::vector<Fact>& facts) {
  std::string out = "<table class=\"kv\"><tbody>\n";
  for (const Fact& f : facts) out += "<tr><th>" + e(f.label) + "</th>" + td(f.value) + "</tr>\n";
  return out + "</tbody></table>\n";
}

}  // namespace

const std::string& report_css() {
  static const std::string kCss = R"(
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif; color: #222;
       margin: 0 auto; max-width: 1440px; padding: 24px 32px 48px; line-height: 1.45; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p.sub, p.note { color: #555; margin-top: 0; }
.warn { background: #fff4e5; border: 1px solid #e69f00; padding: 8px 12px; border-radius: 6px; }
.cards { display: flex; gap: 16px; flex-wrap: wrap; }
.card { flex: 1 1 260px; border: 1px solid #ddd; border-radius: 8px; padding: 10px 14px; background: #fafafa; }
.card h3 { margin: 0; font-size: 13px; text-transform: uppercase; letter-spacing: 0.05em; color: #555; }
.card p { margin: 4px 0; }
.card .big { font-size: 24px; font-weight: 600; }
.card .plan { font-size: 13px; color: #444; }
figure { margin: 0; }
figure svg { width: 100%; height: auto; max-width: 1100px; display: block; }
figcaption { font-size: 13px; color: #555; max-width: 1100px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 3px 7px; text-align: left; white-space: nowrap; vertical-align: top; }
thead th { background: #f2f2f2; position: sticky; top: 0; white-space: normal; vertical-align: bottom; min-width: 3em; }
td.wrap { white-space: normal; min-width: 280px; max-width: 460px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.better { color: #00734d; font-weight: 600; }
td.worse { color: #b23a00; font-weight: 600; }
table.kv th { background: none; font-weight: 600; width: 12em; }
table.kv td { white-space: normal; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; }
.badge { display: inline-block; font-size: 11px; border-radius: 8px; padding: 0 6px; margin-left: 6px; color: #fff; background: #555; }
.badge.cheapest { background: #00734d; }
.badge.knee { background: #0072b2; }
.badge.fastest { background: #b23a00; }
.badge.warned { background: #8a5a00; }
.badge.infeasible { background: #999; }
.uncalibrated { font-size: 11px; border: 1px solid #b23a00; color: #b23a00; border-radius: 8px; padding: 0 5px; }
.decide { font-size: 17px; border-left: 4px solid #0072b2; padding: 6px 12px; background: #f3f8fc; }
.status-ok { color: #00734d; font-weight: 600; }
.status-failed { color: #b23a00; font-weight: 600; }
.status-skipped { color: #777; }
pre { background: #f6f6f6; border: 1px solid #e3e3e3; padding: 10px 12px; overflow-x: auto; font-size: 12px; }
footer { margin-top: 40px; font-size: 12px; color: #777; }
)";
  return kCss;
}

std::string render_report_html(const ReportModel& m) {
  std::string out = "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                    "<title>" + e(m.title) + "</title>\n<style>" + report_css() + "</style>\n</head>\n<body>\n";
  out += "<header><h1>" + e(m.title) + "</h1>\n<p class=\"sub\">" + e(m.sweep ? "Sweep file" : "Front") + " <code>" +
         e(m.front_label) + "</code>: " + e(m.what) +
         (m.diff ? ", compared with <code>" + e(m.baseline_label) + "</code>" : std::string()) + ".</p></header>\n";
  out += "<section id=\"decision\"><p class=\"decide\">" + e(m.recommendation) + "</p>\n";
  for (const std::string& w : m.warnings) out += "<p class=\"warn\">" + e(w) + "</p>\n";
  out += facts_table(m.job) + "</section>\n";
  if (m.picks)
    out += "<section id=\"summary\"><div class=\"cards\">\n" + card(m, "Cheapest", m.picks->cheapest) +
           card(m, "Knee", m.picks->knee) + card(m, "Fastest", m.picks->fastest) + "</div></section>\n";
  out += "<section id=\"plot\"><h2>" + e(m.sweep ? "Sweep points" : "Pareto front") + "</h2>\n<figure>\n" +
         svg::render_svg(report_plot(m)) + "<figcaption>" + e(m.cost_title) + " against " + e(m.speed_title) +
         ". Colour: GPU type; shape: number of islands; the line is the cheapest cost that reaches at least a given "
         "speed" + std::string(m.diff ? "; grey dashed: the baseline" : "") +
         (m.sweep ? "; points that are not feasible are not drawn" : "") +
         ". " + e(kKneeDefinition) + " Hover over a point for its plan.</figcaption>\n</figure></section>\n";
  std::vector<std::size_t> all(m.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  out += "<section id=\"front\"><h2>" + e(m.sweep ? "Sweep points" : "Plans on the front") + "</h2>\n" +
         plan_table(m, m.rows, all) + "</section>\n";
  if (m.diff) out += changes_section(m);
  out += "<section id=\"scenario\"><h2>Scenario</h2>\n<pre>" + e(m.scenario_text) + "</pre></section>\n";
  out += "<section id=\"provenance\"><h2>Provenance</h2>\n" + facts_table(m.provenance);
  if (!m.rejections.empty()) out += "<h3>Rejected candidates</h3>\n" + facts_table(m.rejections);
  out += "</section>\n<footer>Generated by " + e(m.generator) +
         ". Costs are USD for the whole token budget unless the column says otherwise; throughput is tokens per "
         "second of the whole job.</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace shardmeter::results
