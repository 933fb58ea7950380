// The catalogs as users browse them: `shardmeter list`, each GPU type's calibration status (and that it agrees
// with the published runs it was fitted to), case-insensitive name suggestions, and the status shown by estimate
// and search.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"
#include "run_shardmeter.hpp"
#include "model/spec/enum_names.hpp"
#include "results/front/calibration_marks.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/word_lists.hpp"
#include "src/validation/validation.hpp"

namespace shardmeter {

namespace {
const std::string kSource = SHARDMETER_SOURCE_DIR;
}  // namespace

TEST_CASE("A GPU's calibration status is what the published runs support", "[catalog][calibration]") {
  using model::Stack;
  using S = cli::CalibrationStatus;
  const cli::Catalog& catalog = test::shipped_catalog();
  // The types with `calibrate` rows in the table `shardmeter calibrate` fits to, and the stacks of each family's rows.
  std::set<std::string> with_rows;
  std::map<std::string, std::set<Stack>> family_stacks;
  for (const cli::ValidationRun& r :
       cli::load_validation_runs(kSource + "/scenarios/validation/published_runs.csv", catalog))
    if (r.use == cli::RowUse::calibrate) {
      const std::string gpu(r.scenario.cluster.islands[0].gpu.name.view());
      with_rows.insert(gpu);
      family_stacks[catalog.gpus.at(gpu).family].insert(r.scenario.plan.stack);
    }
  REQUIRE_FALSE(with_rows.empty());

  for (const auto& [name, entry] : catalog.gpus) {
    INFO(name << " says calibration: " << entry.calibration);
    const S expected = with_rows.count(name)                ? S::fitted
                       : family_stacks.count(entry.family) ? S::family
                                                           : S::uncalibrated;
    // A fit limited to some stacks (calibration_stacks) names exactly the stacks its family has calibrate rows on.
    if (!entry.calibration_stacks.empty())
      CHECK(std::set<Stack>(entry.calibration_stacks.begin(), entry.calibration_stacks.end()) ==
            family_stacks[entry.family]);
    for (const auto& nv : model::enum_names<Stack>()) {
      INFO("stack " << nv.name);
      const bool covered = entry.calibration_stacks.empty() ||
                           std::find(entry.calibration_stacks.begin(), entry.calibration_stacks.end(), nv.value) !=
                               entry.calibration_stacks.end();
      CHECK(cli::calibration_of(catalog, name, nv.value) == (covered ? expected : S::uncalibrated));
    }
  }
  // Spot checks a reader can verify by eye in gpus.yaml and the CSV.
  CHECK(cli::calibration_of(catalog, "h100-sxm", Stack::megatron_te) == S::fitted);
  // No torch_fsdp2 set on H100: the base set, fitted to the family's calibrate rows (megatron_te and torch_fsdp1).
  CHECK(cli::calibration_of(catalog, "h100-sxm", Stack::torch_fsdp2) == S::fitted);
  CHECK(cli::calibration_of(catalog, "h200-sxm", Stack::megatron_te) == S::family);   // h100 family, no rows
  CHECK(cli::calibration_of(catalog, "b200", Stack::megatron_te) == S::fitted);       // NeMo 25.02 DGX-B200 rows
  CHECK(cli::calibration_of(catalog, "gb200", Stack::megatron_te) == S::fitted);      // NeMo 25.04 DGX-GB200 rows
  // The b200 family's base set (every other stack) is derived from MAMF, not fitted (docs/model.md §11.2).
  CHECK(cli::calibration_of(catalog, "b200", Stack::torch_fsdp2) == S::uncalibrated);
  CHECK(cli::calibration_of(catalog, "gb200", Stack::megatron) == S::uncalibrated);
  CHECK(cli::calibration_of(catalog, "mi325x", Stack::megatron_te) == S::uncalibrated);
  CHECK(cli::calibration_of(catalog, "custom", Stack::megatron_te) == S::uncalibrated);  // an inline GPU
  const std::vector<std::string> gpus{"h100-sxm", "mi300x", "mi325x", "mi300x", "custom", "b200"};
  CHECK(cli::uncalibrated_among(catalog, gpus, Stack::megatron_te) ==
        std::vector<std::string>{"custom", "mi300x", "mi325x"});
  CHECK(cli::uncalibrated_among(catalog, gpus, Stack::torch_fsdp2) ==
        std::vector<std::string>{"b200", "custom", "mi300x", "mi325x"});
  CHECK(cli::describe_calibration(catalog, "h200-sxm", Stack::megatron_te) ==
        "fitted to published runs of its family (h100)");
  CHECK(cli::describe_calibration(catalog, "h100-sxm", Stack::torch_fsdp2) == "fitted to published runs");
  CHECK(cli::describe_calibration(catalog, "b200", Stack::megatron_te) == "fitted to published runs (megatron_te only)");
  CHECK(cli::describe_calibration(catalog, "b200", Stack::torch_fsdp2) ==
        "UNCALIBRATED on torch_fsdp2: its constants are fitted for megatron_te only; on this stack figures are "
        "extrapolated");
  CHECK(cli::calibration_coverage(catalog, "b200") == "fitted: megatron_te only");
  CHECK(cli::calibration_coverage(catalog, "h100-sxm") == "fitted");
}

TEST_CASE("A bad calibration value is a located error", "[catalog][calibration]") {
  CHECK(cli::parse_calibration_status("fitted") == cli::CalibrationStatus::fitted);
  CHECK_FALSE(cli::parse_calibration_status("Fitted"));
  CHECK_FALSE(cli::parse_calibration_status("yes"));

  // A data directory with the shipped catalogs, one line of gpus.yaml changed: exit 2 with file, line and column,
  // the key's path and the value.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardmeter_calib_stacks_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "data");
  std::filesystem::copy(kSource + "/scenarios/models", dir / "data/models");
  std::filesystem::copy_file(kSource + "/scenarios/links.yaml", dir / "data/links.yaml");
  const std::string shipped = testing::read_text(kSource + "/scenarios/gpus.yaml");
  const std::string line = "    calibration_stacks: [megatron_te]";
  const std::size_t at = shipped.find(line);   // b200's
  REQUIRE(at != std::string::npos);
  const int line_number = 1 + static_cast<int>(std::count(shipped.begin(), shipped.begin() + at, '\n'));
  const auto check = [&](const std::string& replacement, const std::string& where, const std::string& message) {
    std::string text = shipped;
    text.replace(at, line.size(), replacement);
    std::ofstream(dir / "data/gpus.yaml") << text;
    const auto r = testing::run_shardmeter("list gpus --data-dir data", dir.string());
    INFO(replacement << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("gpus.yaml:" + std::to_string(line_number) + ":" + where));
    CHECK_THAT(r.err, Catch::Contains(message));
  };
  check("    calibration_stacks: [megatron_tee]", "26: ", "gpus.b200.calibration_stacks.0 = megatron_tee");
  check("    calibration_stacks: [torch_fsdp2]", "26: ",
        "gpus.b200.calibration_stacks.0 = torch_fsdp2 has no efficiency.stacks set of its own");
  check("    calibration_stacks: [megatron_te, megatron_te]", "39: ", "is listed twice");
  check("    calibration_stacks: megatron_te", "25: ", "is not a list of stack names");
  check("    calibration_stacks: []", "25: ", "is not a list of stack names");
  std::string uncalibrated = shipped;
  const std::string status = "    calibration: fitted\n" + line;
  REQUIRE(uncalibrated.find(status) != std::string::npos);
  uncalibrated.replace(uncalibrated.find(status), status.size(),
                       "    calibration: uncalibrated\n    calibration_stacks: [megatron_te]");
  std::ofstream(dir / "data/gpus.yaml") << uncalibrated;
  const auto r = testing::run_shardmeter("list gpus --data-dir data", dir.string());
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("is given with calibration: uncalibrated"));
  std::filesystem::remove_all(dir);
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
  // b200's fit covers megatron_te only: every other stack is uncalibrated; h100's covers every stack.
  CHECK(by_name["b200"]["calibration_stacks"] == nlohmann::json::array({"megatron_te"}));
  CHECK(by_name["b200"]["calibration_by_stack"]["megatron_te"] == "fitted");
  CHECK(by_name["b200"]["calibration_by_stack"]["torch_fsdp2"] == "uncalibrated");
  CHECK(by_name["h100-sxm"]["calibration_stacks"].is_null());
  CHECK(by_name["h100-sxm"]["calibration_by_stack"]["torch_fsdp2"] == "fitted");
  CHECK(gpus.out.find("fitted: megatron_te only") != std::string::npos);
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
  // Per (GPU type, stack): B200 is fitted for megatron_te (the default stack) only.
  const auto b200 = testing::run_shardmeter("estimate " + scenario + " --set cluster.islands.0.gpu=b200");
  REQUIRE(b200.status == 0);
  CHECK(b200.out.find("b200: fitted to published runs (megatron_te only)") != std::string::npos);
  const std::string fsdp2 = " --set cluster.islands.0.gpu=b200 --set plan.stack=torch_fsdp2";
  const auto b200_fsdp2 = testing::run_shardmeter("estimate " + scenario + fsdp2);
  REQUIRE(b200_fsdp2.status == 0);
  CHECK(b200_fsdp2.out.find("b200: UNCALIBRATED on torch_fsdp2") != std::string::npos);
  const auto b200_json = testing::run_shardmeter("estimate " + scenario + fsdp2 + " --json");
  REQUIRE(b200_json.status == 0);
  CHECK(nlohmann::json::parse(b200_json.out)["uncalibrated_gpus"] == nlohmann::json::array({"b200"}));
  const auto h100_fsdp2 = testing::run_shardmeter("estimate " + scenario + " --set plan.stack=torch_fsdp2 --json");
  REQUIRE(h100_fsdp2.status == 0);
  CHECK(nlohmann::json::parse(h100_fsdp2.out)["uncalibrated_gpus"] == nlohmann::json::array());
  const auto h100_text = testing::run_shardmeter("estimate " + scenario + " --set plan.stack=torch_fsdp2");
  CHECK(h100_text.out.find("h100-sxm: fitted to published runs\n") != std::string::npos);
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

TEST_CASE("search marks B200 per row: fitted on megatron_te, uncalibrated on torch_fsdp2", "[catalog][cli]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardmeter_calib_stack_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // A small B200 search over both stacks (and a plain one per stack).
  std::string text = testing::read_text(kSource + "/scenarios/default.yaml");
  const std::string h100 = "gpu: h100-sxm";
  REQUIRE(text.find(h100) != std::string::npos);
  text.replace(text.find(h100), h100.size(), "gpu: b200");   // (an axis over plan.stack sets the GPU's constants)
  const std::size_t axes = text.find("search:\n");
  REQUIRE(axes != std::string::npos);
  text = text.substr(0, axes) +
         "search:\n  axes:\n    plan.stack: [megatron_te, torch_fsdp2]\n"
         "    plan.tp: [4, 8]\n    plan.pp: [2, 4, 8]\n    plan.sharding: [zero1, fsdp]\n"
         "    training.micro_batch: [1, 2]\n  constraints:\n    max_wall_clock_days: 365\n";
  std::ofstream(dir / "s.yaml") << text;
  std::string te_only = text;
  const std::string both_stacks = "[megatron_te, torch_fsdp2]";
  te_only.replace(te_only.find(both_stacks), both_stacks.size(), "[megatron_te]");
  std::ofstream(dir / "te.yaml") << te_only;
  const std::string data = " --data-dir '" + kSource + "/scenarios'";

  const auto te = testing::run_shardmeter("search te.yaml --quiet" + data, dir.string());
  INFO(te.err);
  REQUIRE(te.status == 0);
  CHECK(te.out.find("b200*") == std::string::npos);
  CHECK(te.out.find("uncalibrated") == std::string::npos);

  const auto both = testing::run_shardmeter("search s.yaml --quiet --json f.json -o f.h5" + data, dir.string());
  INFO(both.err);
  REQUIRE(both.status == 0);
  const nlohmann::json file = nlohmann::json::parse(testing::read_text(dir / "f.json"));
  const nlohmann::json& run = file.at("run");
  // Each front row: b200 is uncalibrated exactly when the row's stack is torch_fsdp2.
  std::set<std::string> stacks;
  for (const nlohmann::json& row : file.at("front")) stacks.insert(row.at("axis:plan.stack").get<std::string>());
  REQUIRE_FALSE(stacks.empty());
  std::vector<std::string> pairs;
  if (stacks.count("torch_fsdp2")) pairs.push_back("b200:torch_fsdp2");
  CHECK(run.at("uncalibrated_gpu_stacks") == nlohmann::json(pairs));
  CHECK(run.at("uncalibrated_gpus") == (pairs.empty() ? nlohmann::json::array() : nlohmann::json::array({"b200"})));
  if (stacks.count("torch_fsdp2")) CHECK(both.out.find("* uncalibrated GPU type (b200 on torch_fsdp2)") != std::string::npos);
  // Export of the first row says the same as its stack.
  const auto exported = testing::run_shardmeter("export f.h5 --pick 1 --format plan-json" + data, dir.string());
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  const nlohmann::json plan = nlohmann::json::parse(exported.out);
  const bool first_fsdp2 = file.at("front").at(0).at("axis:plan.stack") == "torch_fsdp2";
  CHECK(plan.at("uncalibrated_gpus") == (first_fsdp2 ? nlohmann::json::array({"b200"}) : nlohmann::json::array()));
  CHECK((exported.out.find("b200 UNCALIBRATED") != std::string::npos) == first_fsdp2);
  // The report lists b200 as uncalibrated on the front's torch_fsdp2 rows (all of them, or some).
  const auto report = testing::run_shardmeter("report f.h5 -o r.html --markdown r.md", dir.string());
  INFO(report.err);
  REQUIRE(report.status == 0);
  const std::string md = testing::read_text(dir / "r.md");
  if (stacks == std::set<std::string>{"torch_fsdp2"})
    CHECK(md.find("| GPU types | b200 UNCALIBRATED: efficiency constants extrapolated") != std::string::npos);
  else if (stacks.size() == 2)
    CHECK(md.find("b200 UNCALIBRATED on torch_fsdp2 (") != std::string::npos);
  else
    CHECK(md.find("b200 calibrated against published runs") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("A front row's calibration status follows its stack", "[catalog][calibration]") {
  using results::RowCalibration;
  results::RunInfo info;
  results::Row te{{"axis:plan.stack", std::string("megatron_te")}};
  results::Row fsdp2{{"axis:plan.stack", std::string("torch_fsdp2")}};
  const results::Row no_axis;
  CHECK(results::gpu_calibration(info, te, "b200") == RowCalibration::unknown);   // before schema_version 3
  info.uncalibrated_gpus = std::vector<std::string>{"b200"};
  // Written before the status depended on the stack: every row of a listed type.
  CHECK(results::gpu_calibration(info, te, "b200") == RowCalibration::uncalibrated);
  info.uncalibrated_gpu_stacks = std::vector<std::string>{"b200:torch_fsdp2"};
  CHECK(results::gpu_calibration(info, te, "b200") == RowCalibration::calibrated);
  CHECK(results::gpu_calibration(info, fsdp2, "b200") == RowCalibration::uncalibrated);
  CHECK(results::gpu_calibration(info, fsdp2, "h100-sxm") == RowCalibration::calibrated);
  // The caller's stack (export's rebuilt scenario) wins; without an axis label every row shares one stack.
  CHECK(results::gpu_calibration(info, fsdp2, "b200", "megatron_te") == RowCalibration::calibrated);
  CHECK(results::gpu_calibration(info, no_axis, "b200") == RowCalibration::uncalibrated);
}

}  // namespace shardmeter
