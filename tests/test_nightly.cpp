#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "results/files/hdf5_writer.hpp"
#include "catalog_fixture.hpp"
#include "src/scenario/catalog.hpp"
#include "src/nightly/nightly.hpp"
#include "src/text/clock_text.hpp"
#include "src/scenario/price_overrides.hpp"
#include "src/scenario/version.hpp"
#include "tests/report_test_fronts.hpp"
#include "tests/results_test_points.hpp"
#include "tests/run_shardmeter.hpp"
#include "tests/xml_check.hpp"

using namespace shardmeter;
using results::ScenarioStatus;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string price_error(const std::string& yaml, const fs::path& path) {
  write(path, yaml);
  try {
    cli::load_price_overrides(path.string(), test::shipped_catalog());
  } catch (const cli::ScenarioError& e) {
    return e.what();
  }
  return "";
}

// The settings of a nightly run on 2025-01-02 publishing into `results_dir`, as the tests below run it.
cli::NightlySettings nightly_settings(const fs::path& results_dir) {
  cli::NightlySettings settings;
  settings.results_dir = results_dir;
  settings.date = "2025-01-02";
  settings.scenario_dir = "scenarios/nightly";
  settings.generator = "shardmeter test";
  settings.created = "2025-01-02T04:00:00Z";
  return settings;
}

}  // namespace

TEST_CASE("Nightly dates are real calendar days", "[nightly]") {
  CHECK(cli::valid_date("2024-02-29"));
  CHECK(cli::valid_date("2025-12-31"));
  CHECK_FALSE(cli::valid_date("2025-02-29"));
  CHECK_FALSE(cli::valid_date("1900-02-29"));
  CHECK(cli::valid_date("2000-02-29"));
  CHECK_FALSE(cli::valid_date("2025-13-01"));
  CHECK_FALSE(cli::valid_date("2025-1-01"));
  CHECK_FALSE(cli::valid_date("2025/01/01"));
  CHECK_FALSE(cli::valid_date("latest"));
  CHECK(cli::valid_date(cli::utc_today()));
}

TEST_CASE("The baseline is the newest earlier date directory holding the scenario", "[nightly]") {
  test::ScratchDir dir;
  write(dir / "2024-01-01/a.h5", "x");
  write(dir / "2024-01-03/a.h5", "x");
  write(dir / "2024-01-05/b.h5", "x");
  write(dir / "2024-01-09/a.h5", "x");   // later than the run: never a baseline
  write(dir / "notes/a.h5", "x");        // not a date
  CHECK(cli::find_baseline_date(dir.path(), "2024-01-06", "a") == std::optional<std::string>("2024-01-03"));
  CHECK(cli::find_baseline_date(dir.path(), "2024-01-03", "a") == std::optional<std::string>("2024-01-01"));
  CHECK_FALSE(cli::find_baseline_date(dir.path(), "2024-01-01", "a"));
  CHECK(cli::find_baseline_date(dir.path(), "2024-01-06", "b") == std::optional<std::string>("2024-01-05"));
  CHECK_FALSE(cli::find_baseline_date(dir.path() / "missing", "2024-01-06", "a"));
}

TEST_CASE("Publishing a nightly run: reports per scenario, failures reported, the others go on", "[nightly]") {
  test::ScratchDir dir;
  test::write_front_file(dir / "2025-01-01/alpha.h5", "alpha", test::realistic_front(true));
  test::write_front_file(dir / "2025-01-02/alpha.h5", "alpha", test::realistic_front());
  test::write_front_file(dir / "2025-01-02/gamma.h5", "gamma <&>", test::realistic_front());
  write(dir / "2025-01-02/broken.h5", "not an HDF5 file");

  const cli::NightlySettings settings = nightly_settings(dir.path());
  const std::vector<cli::SearchOutcome> outcomes = {
      {"alpha", "alpha", ScenarioStatus::ok, "", 2.5},
      {"beta", "beta", ScenarioStatus::failed, "beta.yaml:3:5: plan.tp = 3 is not ... <bad>", 0.1},
      {"broken", "", ScenarioStatus::ok, "", 1.0},   // the search wrote a file the reader rejects
      {"delta", "", ScenarioStatus::skipped, "no search: section", 0},
      {"gamma", "gamma <&>", ScenarioStatus::ok, "", 3.0},
  };
  std::ostringstream log;
  const cli::NightlyPublished p = cli::publish_nightly(settings, outcomes, log);
  CHECK(p.any_failed);
  REQUIRE(p.entries.size() == 5);
  CHECK(p.entries[0].status == ScenarioStatus::ok);
  CHECK(p.entries[0].baseline_date == "2025-01-01");
  CHECK(p.entries[0].front_size == 10);
  CHECK(p.entries[0].joined == 1);
  CHECK(p.entries[0].left == 1);
  CHECK(*p.entries[0].cheapest_cost_change == Approx(1 / 1.08 - 1));
  CHECK(p.entries[1].status == ScenarioStatus::failed);
  CHECK(p.entries[2].status == ScenarioStatus::failed);
  CHECK_THAT(p.entries[2].message, Catch::Contains("broken.h5"));
  CHECK(p.entries[3].status == ScenarioStatus::skipped);
  CHECK(p.entries[4].status == ScenarioStatus::ok);
  CHECK(p.entries[4].baseline_date.empty());

  const fs::path day = dir / "2025-01-02";
  for (const char* f : {"alpha.html", "alpha.md", "gamma.html", "gamma.md", "index.html"}) CHECK(fs::exists(day / f));
  CHECK_FALSE(fs::exists(day / "broken.html"));
  const test::XmlDocument index = test::parse_xml(testing::read_text(day / "index.html"));
  INFO(index.error);
  REQUIRE(index.ok);
  CHECK(index.text.find("5 scenarios from scenarios/nightly: 2 ok, 2 failed, 1 skipped") != std::string::npos);
  CHECK(index.text.find("plan.tp = 3 is not ... <bad>") != std::string::npos);
  CHECK(index.text.find("gamma <&>") != std::string::npos);
  std::size_t links = 0;
  for (const auto& e : index.elements)
    if (e.name == "a") {
      ++links;
      CHECK(fs::exists(day / e.attributes.at("href")));   // every link resolves in the date directory
    }
  CHECK(links == 2 * 4);   // alpha and gamma: name, html, md, h5
  CHECK(test::parse_xml(testing::read_text(day / "alpha.html")).ok);
  CHECK_THAT(log.str(), Catch::Contains("nightly: FAILED  beta") && Catch::Contains("nightly: ok      alpha"));
}

// Issue 33: a scenario file named like a URL scheme, a fragment or a query publishes links that stay relative
// paths into the date directory (published through publish_nightly, as `shardmeter nightly` does).
TEST_CASE("A nightly run of scenarios named javascript:... or a#b%20c?d links only to its own files", "[nightly][hardening]") {
  test::ScratchDir dir;
  const std::vector<std::string> names = {"javascript:alert(3)", "a#b%20c?d"};
  for (const std::string& n : names) test::write_front_file(dir / "2025-01-02" / (n + ".h5"), n, test::realistic_front());
  const cli::NightlySettings settings = nightly_settings(dir.path());
  std::vector<cli::SearchOutcome> outcomes;
  for (const std::string& n : names) outcomes.push_back({n, n, ScenarioStatus::ok, "", 1.0});
  std::ostringstream log;
  const cli::NightlyPublished p = cli::publish_nightly(settings, outcomes, log);
  CHECK_FALSE(p.any_failed);
  const fs::path day = dir / "2025-01-02";
  const test::XmlDocument index = test::parse_xml(testing::read_text(day / "index.html"));
  INFO(index.error);
  REQUIRE(index.ok);
  const auto decoded = [](const std::string& href) {
    std::string out;
    for (std::size_t i = 0; i < href.size(); ++i)
      if (href[i] == '%' && i + 2 < href.size()) {
        out += static_cast<char>(std::stoi(href.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        out += href[i];
      }
    return out;
  };
  std::size_t links = 0;
  for (const auto& e : index.elements)
    if (e.name == "a") {
      ++links;
      const std::string href = e.attributes.at("href");
      INFO(href);
      CHECK(href.starts_with("./"));   // relative: a browser never reads "javascript:" as a scheme
      CHECK(href.find_first_of(":#?") == std::string::npos);
      CHECK(fs::exists(day / decoded(href)));   // and it names the file that was published
    }
  CHECK(links == 2 * 4);
}

TEST_CASE("Price overrides apply to the catalog; errors name file, line and column", "[nightly][prices]") {
  test::ScratchDir dir;
  const fs::path path = dir / "prices.yaml";
  write(path, "prices:\n  h100-sxm: {price_usd_per_gpu_hour: 1.75, spot_price_usd_per_gpu_hour: 0.9}\n"
              "  a100-sxm-80gb:\n    price_usd_per_gpu_hour: 0.8\n");
  cli::Catalog catalog = test::shipped_catalog();
  const double a100_spot = catalog.gpus.at("a100-sxm-80gb").gpu.spot_price_usd_per_gpu_hour;
  cli::apply_price_overrides(catalog, cli::load_price_overrides(path.string(), catalog));
  CHECK(catalog.gpus.at("h100-sxm").gpu.price_usd_per_gpu_hour == 1.75);
  CHECK(catalog.gpus.at("h100-sxm").gpu.spot_price_usd_per_gpu_hour == 0.9);
  CHECK(catalog.gpus.at("a100-sxm-80gb").gpu.price_usd_per_gpu_hour == 0.8);
  CHECK(catalog.gpus.at("a100-sxm-80gb").gpu.spot_price_usd_per_gpu_hour == a100_spot);
  // Committed prices are discounts on on-demand (docs/model.md §11.5): H100 1y 1.52 x 1.75 / 1.90 = 1.40,
  // 3y 1.14 x 1.75 / 1.90 = 1.05.
  CHECK(catalog.gpus.at("h100-sxm").committed_1y_price_usd_per_gpu_hour == Approx(1.40));
  CHECK(catalog.gpus.at("h100-sxm").committed_3y_price_usd_per_gpu_hour == Approx(1.05));

  const std::string p = path.string();
  CHECK_THAT(price_error("prices:\n  h100-sxn: {price_usd_per_gpu_hour: 2}\n", path),
             Catch::StartsWith(p + ":2:3") && Catch::Contains("did you mean h100-sxm"));
  CHECK_THAT(price_error("prices:\n  h100-sxm: {price_usd_per_gpu_hour: -1}\n", path),
             Catch::StartsWith(p + ":2:") && Catch::Contains("greater than 0"));
  CHECK_THAT(price_error("prices:\n  h100-sxm: {price: 2}\n", path), Catch::StartsWith(p + ":2:") &&
                                                                          Catch::Contains("price"));
  CHECK_THAT(price_error("prices:\n  h100-sxm: {}\n", path), Catch::Contains("is required"));
  CHECK_THAT(price_error("gpus: {}\n", path), Catch::StartsWith(p + ":1:1"));
  CHECK_THAT(price_error("prices: [1, 2\n", path), Catch::Contains("YAML syntax error"));
}

TEST_CASE("shardmeter nightly: bad command lines and prices exit 2; a failed scenario exits 1", "[nightly][cli]") {
  test::ScratchDir dir;
  write(dir / "in/bad.yaml", "name: bad\nsearch: [1, 2\n");
  write(dir / "in/plain.yaml", "name: plain\nmodel: {preset: llama3-8b}\n");
  write(dir / "prices.yaml", "prices:\n  nope: {price_usd_per_gpu_hour: 1}\n");
  const std::string d = dir.path().string();

  const auto bad_date = testing::run_shardmeter("nightly in --out out --date 2025-02-30", d);
  CHECK(bad_date.status == 2);
  CHECK_THAT(bad_date.err, Catch::Contains("2025-02-30 is not a date"));
  const auto bad_prices = testing::run_shardmeter("nightly in --out out --prices prices.yaml", d);
  CHECK(bad_prices.status == 2);
  CHECK_THAT(bad_prices.err, Catch::StartsWith("prices.yaml:2:3"));
  const auto no_dir = testing::run_shardmeter("nightly missing --out out", d);
  CHECK(no_dir.status == 2);
  const auto no_out = testing::run_shardmeter("nightly in", d);
  CHECK(no_out.status == 2);
  CHECK_FALSE(fs::exists(dir / "out"));

  const auto run = testing::run_shardmeter("nightly in --out out --date 2025-03-01", d);
  CHECK(run.status == 1);
  CHECK_THAT(run.err, Catch::Contains("nightly: FAILED  bad: ") && Catch::Contains("bad.yaml:3:1: YAML syntax error") &&
                          Catch::Contains("nightly: skipped plain: no search: section"));
  CHECK_THAT(run.out, Catch::Contains("2 scenarios: 0 ok, 1 failed, 1 skipped"));
  const test::XmlDocument index = test::parse_xml(testing::read_text(dir / "out/2025-03-01/index.html"));
  CHECK(index.ok);
}
