// The catalogs as users browse them: `shardmeter list`, each GPU type's calibration status (and that it agrees
// with the published runs it was fitted to), case-insensitive name suggestions, and the status shown by estimate
// and search.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"
#include "run_shardmeter.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/word_lists.hpp"
#include "src/validation/validation.hpp"

namespace shardmeter {

namespace {
const std::string kSource = SHARDMETER_SOURCE_DIR;
}  // namespace

TEST_CASE("A GPU's calibration status is what the published runs support", "[catalog][calibration]") {
  const cli::Catalog& catalog = test::shipped_catalog();
  // The types with `calibrate` rows in the table `shardmeter calibrate` fits to.
  std::set<std::string> with_rows;
  for (const cli::ValidationRun& r :
       cli::load_validation_runs(kSource + "/scenarios/validation/published_runs.csv", catalog))
    if (r.use == cli::RowUse::calibrate) with_rows.insert(std::string(r.scenario.cluster.islands[0].gpu.name.view()));
  REQUIRE_FALSE(with_rows.empty());
  std::set<std::string> fitted_families;
  for (const std::string& g : with_rows) fitted_families.insert(catalog.gpus.at(g).family);

  for (const auto& [name, entry] : catalog.gpus) {
    INFO(name << " says calibration: " << entry.calibration);
    const cli::CalibrationStatus expected = with_rows.count(name) ? cli::CalibrationStatus::fitted
                                            : fitted_families.count(entry.family) ? cli::CalibrationStatus::family
                                                                                  : cli::CalibrationStatus::uncalibrated;
    CHECK(cli::calibration_of(catalog, name) == expected);
  }
  // Spot checks a reader can verify by eye in gpus.yaml and the CSV.
  CHECK(cli::calibration_of(catalog, "h100-sxm") == cli::CalibrationStatus::fitted);
  CHECK(cli::calibration_of(catalog, "h200-sxm") == cli::CalibrationStatus::family);   // h100 family, no rows
  CHECK(cli::calibration_of(catalog, "b200") == cli::CalibrationStatus::fitted);         // NeMo 25.02 DGX-B200 rows
  CHECK(cli::calibration_of(catalog, "mi325x") == cli::CalibrationStatus::uncalibrated);
  CHECK(cli::calibration_of(catalog, "custom") == cli::CalibrationStatus::uncalibrated);  // an inline GPU
  const std::vector<std::string> gpus{"h100-sxm", "mi300x", "mi325x", "mi300x", "custom", "b200"};
  CHECK(cli::uncalibrated_among(catalog, gpus) == std::vector<std::string>{"custom", "mi300x", "mi325x"});
  CHECK(cli::describe_calibration(catalog, "h200-sxm") == "fitted to published runs of its family (h100)");
}

TEST_CASE("A bad calibration value is a located error", "[catalog][calibration]") {
  CHECK(cli::parse_calibration_status("fitted") == cli::CalibrationStatus::fitted);
  CHECK_FALSE(cli::parse_calibration_status("Fitted"));
  CHECK_FALSE(cli::parse_calibration_status("yes"));
}

TEST_CASE("Name suggestions ignore case", "[catalog]") {
  const std::vector<std::string> known{"a100-sxm-80gb", "h100-sxm", "h200-sxm", "mi300x"};
  CHECK(cli::closest_match("H100", known) == "h100-sxm");        // prefix, in any case
  CHECK(cli::closest_match("MI300X", known) == "mi300x");        // equal but for case
  CHECK(cli::closest_match("H100-SMX", known) == "h100-sxm");    // two letters swapped: distance 2
  CHECK(cli::closest_match("tpu-v5", known).empty());
}

TEST_CASE("shardmeter list gpus|models|links", "[catalog][cli]") {
  const auto gpus = testing::run_shardmeter("list gpus --data-dir '" + kSource + "/scenarios'");
  INFO(gpus.err);
  REQUIRE(gpus.status == 0);
  CHECK(gpus.out.find("calibration") != std::string::npos);
  const auto json = testing::run_shardmeter("list gpus --json --data-dir '" + kSource + "/scenarios'");
  REQUIRE(json.status == 0);
  std::map<std::string, nlohmann::json> by_name;
  for (const nlohmann::json& g : nlohmann::json::parse(json.out)) by_name[g.at("name")] = g;
  REQUIRE(by_name.count("h100-sxm"));
  CHECK(by_name["h100-sxm"]["bf16_tflops"].get<double>() == Approx(989));   // gpus.yaml: 989 dense bf16
  CHECK(by_name["h100-sxm"]["hbm_gib"].get<double>() == Approx(80));
  CHECK(by_name["h100-sxm"]["calibration"] == "fitted");
  CHECK(by_name["b200"]["calibration"] == "fitted");
  CHECK(by_name["mi325x"]["calibration"] == "uncalibrated");

  const auto models = testing::run_shardmeter("list models --json --data-dir '" + kSource + "/scenarios'");
  REQUIRE(models.status == 0);
  bool found = false;
  for (const nlohmann::json& m : nlohmann::json::parse(models.out))
    if (m.at("name") == "llama3-405b") {
      found = true;
      CHECK(m["layers"] == 126);
      // Counted as in docs/model.md and compared with Meta's published 405 B: within 0.5 %.
      CHECK(m["parameters_b"].get<double>() == Approx(405).epsilon(0.005));
    }
  CHECK(found);
  const auto links = testing::run_shardmeter("list links --data-dir '" + kSource + "/scenarios'");
  REQUIRE(links.status == 0);
  CHECK(links.out.find("nvlink4") != std::string::npos);

  const auto bad = testing::run_shardmeter("list tpus --data-dir '" + kSource + "/scenarios'");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("tpus") != std::string::npos);
}

TEST_CASE("estimate: the header follows --set, and the calibration status is shown", "[catalog][cli]") {
  const std::string scenario = "'" + kSource + "/scenarios/default.yaml' --data-dir '" + kSource + "/scenarios'";
  const auto text = testing::run_shardmeter("estimate " + scenario + " --set cluster.islands.0.gpu=mi325x");
  INFO(text.err);
  REQUIRE(text.status == 0);
  CHECK(text.out.find("on 512 x mi325x GPUs") != std::string::npos);
  CHECK(text.out.find("(the file's description, before --set:") != std::string::npos);
  CHECK(text.out.find("mi325x: UNCALIBRATED") != std::string::npos);
  const auto json = testing::run_shardmeter("estimate " + scenario + " --set cluster.islands.0.gpu=mi325x --json");
  REQUIRE(json.status == 0);
  CHECK(nlohmann::json::parse(json.out)["uncalibrated_gpus"] == nlohmann::json::array({"mi325x"}));
  const auto upper = testing::run_shardmeter("estimate " + scenario + " --set cluster.islands.0.gpu=H100");
  CHECK(upper.status == 2);
  CHECK(upper.err.find("did you mean h100-sxm?") != std::string::npos);
}

TEST_CASE("search: -o with a CSV or JSON name is refused, not written as HDF5", "[catalog][cli]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardmeter_ext_test";
  std::filesystem::create_directories(dir);
  const std::string scenario = "'" + kSource + "/scenarios/default.yaml' --data-dir '" + kSource + "/scenarios'";
  const auto csv = testing::run_shardmeter("search " + scenario + " -o '" + (dir / "f.csv").string() + "'");
  CHECK(csv.status == 2);
  CHECK(csv.err.find("use --csv") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "f.csv"));
  const auto json = testing::run_shardmeter("search " + scenario + " --json '" + (dir / "f.h5").string() + "'");
  CHECK(json.status == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("search marks uncalibrated GPU types in its table and records them in the file", "[catalog][cli]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardmeter_calib_test";
  std::filesystem::create_directories(dir);
  // The default search with mi325x (uncalibrated) in place of a100 on its GPU axis.
  std::string text = testing::read_text(kSource + "/scenarios/default.yaml");
  const std::string axis = "[a100-sxm-80gb, h100-sxm, h200-sxm]";
  REQUIRE(text.find(axis) != std::string::npos);
  text.replace(text.find(axis), axis.size(), "[h100-sxm, mi325x]");
  std::ofstream(dir / "s.yaml") << text;
  const std::string data = " --data-dir '" + kSource + "/scenarios'";
  const auto mi325x = testing::run_shardmeter("search s.yaml --quiet --json f.json" + data, dir.string());
  INFO(mi325x.err);
  REQUIRE(mi325x.status == 0);
  CHECK(mi325x.out.find("mi325x*") != std::string::npos);
  CHECK(mi325x.out.find("* uncalibrated GPU type (mi325x)") != std::string::npos);
  const nlohmann::json file = nlohmann::json::parse(testing::read_text(dir / "f.json"));
  CHECK(file.dump().find("\"uncalibrated_gpus\":[\"mi325x\"]") != std::string::npos);
  const auto h100 = testing::run_shardmeter("search '" + kSource + "/scenarios/default.yaml' --quiet" + data);
  REQUIRE(h100.status == 0);
  CHECK(h100.out.find("uncalibrated") == std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace shardmeter
