#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "model/spec/estimate_warnings.hpp"
#include "results/markup.hpp"
#include "results/report/front_diff.hpp"
#include "results/front/front_picks.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/report/report_html.hpp"
#include "results/report/report_markdown.hpp"
#include "results/report/report_model.hpp"
#include "results/files/row_layout.hpp"
#include "tests/report_test_fronts.hpp"
#include "tests/results_test_points.hpp"
#include "tests/run_shardmeter.hpp"
#include "tests/xml_check.hpp"

using namespace shardmeter;
using test::PlanPoint;

namespace {

results::ResultFile file_of(const std::vector<results::PlanPoint>& points, const std::string& name) {
  results::ResultFile f;
  f.info = test::front_run_info(name);
  f.front = results::RowLayout::fit(points, f.info.axes).table(points);
  return f;
}

results::ReportModel model_of(const results::ResultFile& front, const results::ResultFile* baseline = nullptr) {
  results::ReportInput in;
  in.front = &front;
  in.front_label = "runs/2025-01-02/x.h5";
  in.baseline = baseline;
  in.baseline_label = baseline ? "runs/2025-01-01/x.h5" : "";
  in.generator = "shardmeter test";
  return results::build_report_model(in);
}

// Fronts with hand-checkable costs: plans differ by their tp (part of the plan key).
std::vector<results::PlanPoint> hand_front(const std::vector<std::tuple<int, double, double>>& tp_cost_throughput) {
  std::vector<results::PlanPoint> points;
  for (const auto& [tp, cost, throughput] : tp_cost_throughput) {
    PlanPoint p;
    p.tp = tp;
    p.cost_usd = cost;
    p.tokens_per_s = throughput;
    points.push_back(test::plan_point(p));
  }
  return points;
}

}  // namespace

TEST_CASE("The knee is the plan with the most speed per unit of cost", "[report][knee]") {
  using P = std::pair<double, double>;   // (cost, throughput)
  // Throughput / cost: 1, 4, 1: the middle plan (8x the throughput for 2x the cost).
  CHECK(results::knee_of(std::vector<P>{{1, 1}, {2, 8}, {10, 10}}) == 1);
  // 1, 3, 4, 1: the third.
  CHECK(results::knee_of(std::vector<P>{{1, 1}, {3, 9}, {2, 8}, {10, 10}}) == 2);
  // 1, 0.25, 1: speed per cost never rises past the cheapest's; the tie with the fastest goes to the cheaper plan.
  CHECK(results::knee_of(std::vector<P>{{1, 1}, {8, 2}, {10, 10}}) == 0);
  // 2 and 1: the dearer plan, 5x the cost for 10x the throughput.
  CHECK(results::knee_of(std::vector<P>{{5, 10}, {1, 1}}) == 0);
  CHECK(results::knee_of(std::vector<P>{{7, 3}}) == 0);
  // All throughputs equal: 5 and 2.5, the cheapest.
  CHECK(results::knee_of(std::vector<P>{{1, 5}, {2, 5}}) == 0);
  // Costs within 6.5 % of each other (the shipped llama3-70b-islands front): 515k, 1.99M and 3.82M tokens/s per
  // $M: the fastest, though the three span 8x in throughput.
  CHECK(results::knee_of(std::vector<P>{{1.0, 0.515e6}, {1.03, 2.05e6}, {1.065, 4.07e6}}) == 2);
}

TEST_CASE("Cheapest, fastest and knee picks of a front's rows", "[report][knee]") {
  const results::ResultFile f = file_of(hand_front({{2, 1e6, 1e5}, {4, 2e6, 8e5}, {8, 1e7, 1e6}}), "picks");
  const results::PickAxes axes = results::pick_axes(f.info.objectives);
  const auto picks = results::pick_front(f.front.rows, axes);
  REQUIRE(picks);
  CHECK(picks->cheapest == 0);
  CHECK(picks->fastest == 2);
  CHECK(picks->knee == 1);
  CHECK(results::pick_by_name(*picks, "knee") == std::optional<std::size_t>(1));
  CHECK_FALSE(results::pick_by_name(*picks, "best"));
  CHECK_FALSE(results::pick_front({}, axes));
}

TEST_CASE("Picks never choose a row that is not feasible", "[report][knee]") {
  // Rows: 0 out of memory but cheapest and fastest ($1M, 5e6 t/s); 1 $2M, 1e6; 2 $4M, 3e6.
  std::vector<results::PlanPoint> points = hand_front({{2, 1e6, 5e6}, {4, 2e6, 1e6}, {8, 4e6, 3e6}});
  points[0].estimate.feasible = false;
  points[0].estimate.reject_reason = model::RejectReason::out_of_memory;
  const results::ResultFile f = file_of(points, "oom");
  const results::PickAxes axes = results::pick_axes(f.info.objectives);
  const auto picks = results::pick_front(f.front.rows, axes);
  REQUIRE(picks);
  CHECK(picks->cheapest == 1);
  CHECK(picks->fastest == 2);
  CHECK(picks->knee != 0);
  CHECK(picks->pickable == 2);
  CHECK_THAT(*results::unpickable(f.front.rows[0], axes), Catch::Contains("not feasible (out_of_memory)"));
  CHECK_FALSE(results::unpickable(f.front.rows[1], axes));
}

TEST_CASE("Picks follow the objectives the front was searched with", "[report][knee]") {
  using results::pick_axes;
  const model::Objective cost{&model::metric("total_cost_usd"), model::Direction::minimize};
  const model::Objective effective{&model::metric("effective_tokens_per_s"), model::Direction::maximize};
  const model::Objective days{&model::metric("wall_clock_days"), model::Direction::minimize};
  CHECK(pick_axes({cost, effective}).speed == effective);
  CHECK(pick_axes({cost, days}).speed == days);
  CHECK(pick_axes({}).speed.name() == "tokens_per_s");
  CHECK(pick_axes({}).cost == cost);
  // A minimised speed is turned around: 10 days is twice as good as 20 days.
  CHECK(pick_axes({cost, days}).goodness(10) == Approx(2 * pick_axes({cost, days}).goodness(20)));
  // Rows: (cost, tokens/s, effective tokens/s) = ($1M, 3e6, 1e6), ($2M, 2e6, 2e6): the fastest by effective
  // throughput is the second row, by trained throughput the first.
  std::vector<results::PlanPoint> points = hand_front({{2, 1e6, 3e6}, {4, 2e6, 2e6}});
  points[0].estimate.effective_tokens_per_s = 1e6;
  points[1].estimate.effective_tokens_per_s = 2e6;
  const results::ResultFile f = file_of(points, "diloco");
  CHECK(results::pick_front(f.front.rows, pick_axes({cost, effective}))->fastest == 1);
  CHECK(results::pick_front(f.front.rows, pick_axes({}))->fastest == 0);
}

TEST_CASE("Baseline cost at matched throughput reads the baseline front's step function", "[report][baseline]") {
  using P = std::pair<double, double>;   // (cost, throughput)
  const std::vector<P> base{{1, 10}, {2, 20}, {3, 30}};
  CHECK(results::step_cost_at(base, 5) == std::optional<double>(1));
  CHECK(results::step_cost_at(base, 10) == std::optional<double>(1));
  CHECK(results::step_cost_at(base, 15) == std::optional<double>(2));
  CHECK(results::step_cost_at(base, 30) == std::optional<double>(3));
  CHECK_FALSE(results::step_cost_at(base, 31));
}

TEST_CASE("Baseline diff: joined, left, kept and the cost change at matched throughput", "[report][baseline]") {
  // Baseline: tp 2 ($1.0M, 1000 t/s), tp 4 ($2.0M, 2000), tp 8 ($3.0M, 3000).
  // Now:      tp 2 re-priced to $0.9M, tp 4 unchanged, a new plan (tp 1) at $2.5M reaching 3500; tp 8 gone.
  const results::ResultFile before = file_of(hand_front({{2, 1e6, 1000}, {4, 2e6, 2000}, {8, 3e6, 3000}}), "x");
  const results::ResultFile now = file_of(hand_front({{2, 0.9e6, 1000}, {4, 2e6, 2000}, {1, 2.5e6, 3500}}), "x");
  const results::FrontDiff d = results::diff_fronts(now.front, before.front, results::pick_axes(now.info.objectives));
  CHECK(d.joined == std::vector<std::size_t>{2});
  CHECK(d.left == std::vector<std::size_t>{2});
  CHECK(d.kept == std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 1}});
  REQUIRE(d.matched.size() == 3);
  CHECK(d.matched[0].baseline_cost_usd == std::optional<double>(1e6));
  CHECK(*d.matched[0].relative_change() == Approx(-0.1));
  CHECK(*d.matched[1].relative_change() == Approx(0.0));
  CHECK_FALSE(d.matched[2].baseline_cost_usd);   // no baseline plan reaches 3500 tokens/s
  CHECK(*d.cheapest_cost_change == Approx(-0.1));
  CHECK(*d.fastest_speed_change == Approx(500.0 / 3000.0));
}

TEST_CASE("Re-priced islands are the same plan: prices are not part of the plan key", "[report][baseline]") {
  std::vector<results::PlanPoint> a = hand_front({{2, 1e6, 1000}});
  std::vector<results::PlanPoint> b = a;
  b[0].scenario.cluster.islands[0].price_usd_per_gpu_hour = 9.99;
  const results::FrontDiff d =
      results::diff_fronts(file_of(b, "x").front, file_of(a, "x").front, results::pick_axes({}));
  CHECK(d.joined.empty());
  CHECK(d.left.empty());
  CHECK(d.kept.size() == 1);
}

TEST_CASE("The HTML report is well-formed, self-contained and draws one marker per front row", "[report][html]") {
  const results::ResultFile now = file_of(test::realistic_front(), "llama3-70b nightly");
  const results::ResultFile before = file_of(test::realistic_front(true), "llama3-70b nightly");
  const results::ReportModel m = model_of(now, &before);
  const std::string html = results::render_report_html(m);
  const test::XmlDocument doc = test::parse_xml(html);
  INFO(doc.error);
  REQUIRE(doc.ok);
  CHECK(doc.elements.front().name == "html");
  CHECK(doc.count_class("front") == now.front.rows.size());            // one marker per plan
  CHECK(doc.count_class("baseline") == before.front.rows.size());      // the baseline series
  CHECK(doc.count("svg") == 1);
  for (const char* word : {"cheapest", "knee", "fastest"}) CHECK(doc.text.find(word) != std::string::npos);
  // No network: nothing is fetched, nothing runs.
  CHECK(doc.count("script") == 0);
  CHECK(doc.count("link") == 0);
  CHECK(doc.count("img") == 0);
  CHECK(html.find("@import") == std::string::npos);
  CHECK(html.find("url(http") == std::string::npos);
  for (const auto& e : doc.elements)
    for (const auto& [name, value] : e.attributes)
      if (name == "href" || name == "src") CHECK(value.rfind("http", 0) != 0);
  // The front table: header + one row per plan; joined and left plans in their own tables.
  CHECK(m.diff->joined == std::vector<std::size_t>{9});
  CHECK(m.diff->left.size() == 1);
  CHECK(doc.text.find("Joined the front (1)") != std::string::npos);
  CHECK(doc.text.find("Left the front (1)") != std::string::npos);
  CHECK(doc.text.find("Provenance") != std::string::npos);
  CHECK(doc.text.find("exhaustive") != std::string::npos);
  CHECK(doc.text.find("out_of_memory") != std::string::npos);
}

TEST_CASE("Report text is escaped: a scenario named <&> stays text", "[report][html]") {
  results::ResultFile f = file_of(test::realistic_front(), "tiny <&> \"quoted\"");
  f.info.scenario_text = "name: x\n# </pre><script>alert(1)</script> & more\n";
  const results::ReportModel m = model_of(f);
  const std::string html = results::render_report_html(m);
  const test::XmlDocument doc = test::parse_xml(html);
  INFO(doc.error);
  REQUIRE(doc.ok);
  CHECK(doc.count("script") == 0);
  CHECK(doc.text.find("ShardMeter report: tiny <&> \"quoted\"") != std::string::npos);
  CHECK(doc.text.find("</pre><script>alert(1)</script> & more") != std::string::npos);
  CHECK(html.find("tiny &lt;&amp;&gt; &quot;quoted&quot;") != std::string::npos);

  const std::string md = results::render_report_markdown(m);
  CHECK(md.find("# ShardMeter report: tiny \\<&\\> \"quoted\"") != std::string::npos);
}

TEST_CASE("The Markdown report carries the same tables", "[report][markdown]") {
  const results::ResultFile now = file_of(test::realistic_front(), "x");
  const results::ResultFile before = file_of(test::realistic_front(true), "x");
  const std::string md = results::render_report_markdown(model_of(now, &before));
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto p = md.find(what); p != std::string::npos; p = md.find(what, p + 1)) ++n;
    return n;
  };
  CHECK(count("| # | GPU type | islands x GPUs |") == 3);   // front, joined, left
  CHECK(md.find("## Changes since the baseline") != std::string::npos);
  CHECK(md.find("### Cost at matched speed") != std::string::npos);
  CHECK(md.find("| 1 cheapest | a100-sxm-80gb |") != std::string::npos);   // rows numbered from 1
  CHECK(md.find("```yaml\nname: x\n") != std::string::npos);
}

TEST_CASE("An empty front still renders, saying so", "[report][html]") {
  const results::ResultFile f = file_of({}, "empty");
  const std::string html = results::render_report_html(model_of(f));
  const test::XmlDocument doc = test::parse_xml(html);
  INFO(doc.error);
  REQUIRE(doc.ok);
  CHECK(doc.text.find("the front is empty") != std::string::npos);
  CHECK(doc.count_class("front") == 0);
}

TEST_CASE("shardmeter report writes HTML and Markdown, or nothing on bad input", "[report][cli]") {
  test::ScratchDir dir;
  results::write_front(dir / "now.h5", test::front_run_info("x"), test::realistic_front());
  results::write_front(dir / "old.h5", test::front_run_info("x"), test::realistic_front(true));
  const std::string d = dir.path().string();
  const auto ok = testing::run_shardmeter("report now.h5 --baseline old.h5 -o r.html --markdown r.md", d);
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(test::parse_xml(testing::read_text(dir / "r.html")).ok);
  CHECK(std::filesystem::file_size(dir / "r.md") > 1000);

  const auto missing = testing::run_shardmeter("report nope.h5 -o bad.html", d);
  CHECK(missing.status == 2);
  CHECK(missing.err.find("nope.h5") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "bad.html"));
  const auto no_output = testing::run_shardmeter("report now.h5", d);
  CHECK(no_output.status == 2);
  CHECK(no_output.err.find("-o") != std::string::npos);
}

TEST_CASE("report --baseline of another scenario is refused unless --force, and then the report says so",
          "[report][cli]") {
  test::ScratchDir dir;
  results::write_front(dir / "now.h5", test::front_run_info("x"), test::realistic_front());
  results::write_front(dir / "other.h5", test::front_run_info("y"), test::realistic_front(true));
  const std::string d = dir.path().string();
  const auto refused = testing::run_shardmeter("report now.h5 --baseline other.h5 -o r.html", d);
  CHECK(refused.status == 2);
  CHECK(refused.err.find("'y', not 'x'") != std::string::npos);
  CHECK(refused.err.find("--force") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "r.html"));
  const auto forced = testing::run_shardmeter("report now.h5 --baseline other.h5 --force -o r.html", d);
  INFO(forced.err);
  CHECK(forced.status == 0);
  CHECK(testing::read_text(dir / "r.html").find("another scenario's front, compared on request (--force)") !=
        std::string::npos);
}

// Not run by default: ctest runs it (tag [report_fixture]) before the Python and Chromium checks of the HTML.
TEST_CASE("Write a report for the XML and screenshot checks", "[.][report_fixture]") {
  const char* env = std::getenv("SHARDMETER_REPORT_FIXTURE_DIR");
  REQUIRE(env != nullptr);
  const std::filesystem::path dir(env);
  std::filesystem::create_directories(dir);
  const results::ResultFile now = file_of(test::realistic_front(), "llama3-70b <nightly> & co");
  const results::ResultFile before = file_of(test::realistic_front(true), "llama3-70b <nightly> & co");
  const results::ReportModel m = model_of(now, &before);
  std::ofstream(dir / "report.html") << results::render_report_html(m);
  std::ofstream(dir / "report.md") << results::render_report_markdown(m);
  std::ofstream(dir / "report.expected") << now.front.rows.size() << " " << before.front.rows.size() << "\n";
}

TEST_CASE("The report marks a GPU type per row by the row's stack", "[report][calibration]") {
  // Two B200 plans, one on megatron_te (fitted) and one on torch_fsdp2 (the derived base set), as a search over
  // plan.stack writes them: an axis:plan.stack label per row and the (type, stack) pairs that are uncalibrated.
  std::vector<results::PlanPoint> points;
  for (const auto& [tp, stack, cost] : {std::tuple{4, "megatron_te", 1e6}, std::tuple{8, "torch_fsdp2", 2e6}}) {
    test::PlanPoint p;
    p.gpu = "b200";
    p.tp = tp;
    p.cost_usd = cost;
    p.tokens_per_s = cost;   // dearer and faster: both on the front
    results::PlanPoint point = test::plan_point(p);
    point.labels.push_back(stack);
    points.push_back(point);
  }
  results::ResultFile f;
  f.info = test::front_run_info("b200-stacks");
  f.info.axes.push_back("plan.stack");
  f.front = results::RowLayout::fit(points, f.info.axes).table(points);
  f.info.uncalibrated_gpus = std::vector<std::string>{"b200"};
  f.info.uncalibrated_gpu_stacks = std::vector<std::string>{"b200:torch_fsdp2"};
  const results::ReportModel m = model_of(f);
  REQUIRE(m.rows.size() == 2);
  CHECK_FALSE(m.rows[0].uncalibrated);
  CHECK(m.rows[1].uncalibrated);
  std::string gpu_types;
  for (const results::Fact& fact : m.job)
    if (fact.label == "GPU types") gpu_types = fact.value;
  CHECK(gpu_types == "b200 UNCALIBRATED on torch_fsdp2 (1 of its 2 rows): efficiency constants extrapolated from "
                     "matmul benchmarks; calibrated on the other rows");
  // A file written before the pairs existed: every b200 row is marked, as then.
  f.info.uncalibrated_gpu_stacks.reset();
  const results::ReportModel old = model_of(f);
  CHECK(old.rows[0].uncalibrated);
  CHECK(old.rows[1].uncalibrated);
}

TEST_CASE("The report names the warnings its rows carry (column warning_bits)", "[report][warnings]") {
  // Two plans on the front, the second an fp8 MoE plan with the moe_fp8 warning (docs/model.md §15.8).
  std::vector<results::PlanPoint> points;
  for (const auto& [tp, cost] : {std::pair{4, 1e6}, std::pair{8, 2e6}}) {
    PlanPoint p;
    p.tp = tp;
    p.cost_usd = cost;
    p.tokens_per_s = cost;   // dearer and faster: both on the front
    points.push_back(test::plan_point(p));
  }
  points[1].estimate.warnings = model::bit(model::Warning::moe_fp8);
  results::ResultFile f;
  f.info = test::front_run_info("warned");
  f.front = results::RowLayout::fit(points, f.info.axes).table(points);
  const results::ReportModel m = model_of(f);
  REQUIRE(m.rows.size() == 2);
  CHECK(m.rows[0].warning_bits() == 0);
  CHECK(m.rows[1].warning_bits() == model::bit(model::Warning::moe_fp8));
  CHECK(results::warning_names(m.rows[1].warning_bits()) == "moe_fp8");
  bool listed = false;
  for (const std::string& w : m.warnings)
    listed = listed || w.rfind("Row 2 (moe_fp8): fp8 mixture-of-experts training on Megatron-Core", 0) == 0;
  CHECK(listed);
  const std::string md = results::render_report_markdown(m);
  // (markdown escapes the underscore)
  CHECK_THAT(md, Catch::Contains("> Row 2 (moe\\_fp8): fp8 mixture-of-experts") && Catch::Contains("| 2 fastest !"));
  CHECK_THAT(md, Catch::Contains("(warnings: moe\\_fp8)"));   // the fastest pick's line
  const std::string html = results::render_report_html(m);
  CHECK_THAT(html, Catch::Contains("<span class=\"badge warned\" title=\"moe_fp8\">!</span>"));
  const test::XmlDocument doc = test::parse_xml(html);
  CHECK(doc.ok);
  CHECK(doc.count_class("warned") == 1);
  // A file written before the column: no row claims a warning.
  for (results::Row& r : f.front.rows) r.erase("warning_bits");
  const results::ReportModel old = model_of(f);
  CHECK(old.rows[1].warning_bits() == 0);
  for (const std::string& w : old.warnings) CHECK(w.find("moe_fp8") == std::string::npos);
}

TEST_CASE("Reports and docs/search.md state the knee as results::kKneeDefinition, word for word", "[report][knee]") {
  const results::ResultFile f = file_of(hand_front({{4, 1e6, 1e6}, {8, 2e6, 2e6}}), "knee text");
  const results::ReportModel m = model_of(f);
  const std::string definition(results::kKneeDefinition);
  CHECK_THAT(results::render_report_markdown(m), Catch::Contains(definition));
  CHECK_THAT(results::render_report_html(m), Catch::Contains(results::escape_xml(definition)));
  // docs/search.md "The knee": the paragraph between the markers, its line breaks read as spaces.
  std::ifstream in(SHARDMETER_SOURCE_DIR "/docs/search.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string open = "<!-- knee-definition -->\n", close = "\n<!-- /knee-definition -->";
  const std::size_t from = doc.find(open), to = doc.find(close);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  std::string paragraph = doc.substr(from + open.size(), to - from - open.size());
  for (char& ch : paragraph)
    if (ch == '\n') ch = ' ';
  CHECK(paragraph == definition);
}
