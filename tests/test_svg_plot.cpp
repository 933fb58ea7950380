#include <catch2/catch.hpp>

#include "results/markup.hpp"
#include "results/report/plot_scale.hpp"
#include "results/report/svg_plot.hpp"
#include "tests/xml_check.hpp"

using namespace shardmeter;
namespace svg = shardmeter::results::svg;

TEST_CASE("Numbers read the way people write them", "[report][markup]") {
  CHECK(results::format_si(0) == "0");
  CHECK(results::format_si(830) == "830");
  CHECK(results::format_si(1234) == "1.23k");
  CHECK(results::format_si(2.5e6) == "2.5M");
  CHECK(results::format_si(999.7) == "1k");
  CHECK(results::format_si(0.00123) == "0.00123");
  CHECK(results::format_usd(1.25e6) == "$1.25M");
  CHECK(results::format_usd(-2500) == "-$2.5k");
  CHECK(results::format_percent(0.4123) == "41.2%");
  CHECK(results::format_change(0.125) == "+12.5%");
  CHECK(results::format_change(-0.03) == "-3.0%");
  CHECK(results::escape_xml("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  CHECK(results::escape_xml(std::string("x\x01y")) == "x\xEF\xBF\xBDy");
  CHECK(results::escape_markdown_cell("a|b*c\nd") == "a\\|b\\*c d");
}

TEST_CASE("Linear ticks step by 1, 2 or 5 times a power of ten", "[report][svg]") {
  CHECK(svg::linear_ticks(0, 10) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(svg::linear_ticks(0.1, 0.5, 5) == std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5});
  CHECK(svg::linear_ticks(1.2e6, 6.1e6) == std::vector<double>{2e6, 3e6, 4e6, 5e6, 6e6});
}

TEST_CASE("Log ticks are decades, subdivided when the range is short", "[report][svg]") {
  CHECK(svg::log_ticks(1e5, 1e7) == std::vector<double>{1e5, 1e6, 1e7});
  CHECK(svg::log_ticks(1.5e5, 9e6) == std::vector<double>{2e5, 5e5, 1e6, 2e6, 5e6});
  CHECK(svg::log_ticks(2e5, 9e5).size() == 8);   // 2..9 x 1e5
}

TEST_CASE("Automatic scales go logarithmic when the data span a decade", "[report][svg]") {
  const svg::AxisScale wide = svg::make_axis_scale({2e5, 5.7e6}, svg::Scale::automatic);
  CHECK(wide.log);
  CHECK(wide.lo < 2e5);
  CHECK(wide.hi > 5.7e6);
  CHECK(wide.fraction(wide.lo) == Approx(0));
  CHECK(wide.fraction(wide.hi) == Approx(1));
  const svg::AxisScale narrow = svg::make_axis_scale({1.2e6, 6e6}, svg::Scale::automatic);
  CHECK_FALSE(narrow.log);
  CHECK(narrow.lo <= 1.2e6);
  CHECK(narrow.hi >= 6e6);
  CHECK(narrow.ticks.front() >= narrow.lo);
  CHECK(narrow.ticks.back() <= narrow.hi);
  // A log axis cannot hold zero: linear instead.
  CHECK_FALSE(svg::make_axis_scale({0, 100}, svg::Scale::log).log);
  // One value: a window around it.
  const svg::AxisScale one = svg::make_axis_scale({5}, svg::Scale::automatic);
  CHECK(one.lo < 5);
  CHECK(one.hi > 5);
}

TEST_CASE("An SVG plot is well-formed XML with one marker per point", "[report][svg]") {
  svg::Plot plot;
  plot.title = "Sweep <tp> & \"pp\"";
  plot.x = {"GPUs", "", svg::Scale::log, {}};
  plot.y = {"Throughput per GPU", "tokens/s", svg::Scale::linear, {}};
  svg::Series s;
  s.name = "h100 & friends";
  s.line = svg::Line::straight;
  for (int i = 0; i < 7; ++i)
    s.points.push_back({8.0 * (1 << i), 1000.0 - 50 * i, "", i == 3 ? std::optional(svg::Marker::diamond) : std::nullopt,
                        "point " + std::to_string(i), "p" + std::to_string(i)});
  s.css_class = "sweep";
  plot.series.push_back(s);
  plot.annotations.push_back({64, 850, "knee", "#222222"});
  plot.annotations.push_back({64, 850, "compute-bound", "#222222"});
  plot.vertical_markers.push_back({128, "comm > compute", "#7a7a7a", "5 4"});
  const std::string text = svg::render_svg(plot);
  const test::XmlDocument doc = test::parse_xml(text);
  INFO(doc.error);
  REQUIRE(doc.ok);
  CHECK(doc.elements.front().name == "svg");
  CHECK(doc.elements.front().attributes.at("xmlns") == "http://www.w3.org/2000/svg");
  CHECK(doc.count_class("sweep") == 7);
  CHECK(doc.count("polygon") >= 1);   // the diamond
  CHECK(doc.count("path") == 1);      // the line
  CHECK(doc.text.find("Sweep <tp> & \"pp\"") != std::string::npos);
  CHECK(doc.text.find("knee, compute-bound") != std::string::npos);   // annotations at one point merge
  CHECK(doc.text.find("comm > compute") != std::string::npos);
  CHECK(doc.text.find("GPUs, log scale") != std::string::npos);
  CHECK(doc.text.find("Throughput per GPU (tokens/s)") != std::string::npos);
  const test::XmlDocument file = test::parse_xml(svg::render_svg_document(plot));
  CHECK(file.ok);
}

TEST_CASE("Step lines go vertical first (steps_pre) or horizontal first (steps_post)", "[report][svg]") {
  svg::Plot plot;
  plot.x.scale = plot.y.scale = svg::Scale::linear;
  svg::Series s;
  s.markers = false;
  s.line = svg::Line::steps_pre;
  s.points = {{0, 0, "", {}, "", ""}, {10, 10, "", {}, "", ""}};
  plot.series.push_back(s);
  const auto path_d = [](const std::string& svg_text) {
    const test::XmlDocument doc = test::parse_xml(svg_text);
    for (const auto& e : doc.elements)
      if (e.name == "path") return e.attributes.at("d");
    return std::string();
  };
  // M x0 y0 L x0 y1 L x1 y1: the second point repeats the first x.
  const std::string pre = path_d(svg::render_svg(plot));
  plot.series[0].line = svg::Line::steps_post;
  const std::string post = path_d(svg::render_svg(plot));
  const auto coords = [](const std::string& d) {
    std::vector<double> v;
    std::string token;
    for (const char c : d + " ") {
      if (c == 'M' || c == 'L' || c == ' ') {
        if (!token.empty()) v.push_back(std::stod(token));
        token.clear();
      } else {
        token += c;
      }
    }
    return v;
  };
  const std::vector<double> a = coords(pre), b = coords(post);
  REQUIRE(a.size() == 6);
  REQUIRE(b.size() == 6);
  CHECK(a[2] == a[0]);   // vertical first
  CHECK(b[3] == b[1]);   // horizontal first
}
