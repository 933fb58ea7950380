// `shardmeter estimate` through the built binary: --json carries every contract field with sane values, the
// table reports infeasible plans without failing, and --help / --version work. Plumbing only: the model's
// numbers are calibrated elsewhere, so no predicted step time is asserted.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results_test_points.hpp"
#include "run_shardmeter.hpp"

using shardmeter::testing::run_shardmeter;

namespace {

bool finite_number(const nlohmann::json& j) { return j.is_number() && std::isfinite(j.get<double>()); }

const std::set<std::string> kBottlenecks = {"compute", "memory_bandwidth", "tp_comm", "pp_comm", "pipeline_bubble",
                                            "dp_comm", "memory_capacity", "wan", "straggler"};

}  // namespace

TEST_CASE("estimate --json prints one object with every contract field") {
  const auto r = run_shardmeter("estimate small.yaml --json");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  const nlohmann::json j = nlohmann::json::parse(r.out);  // exactly one JSON value, or this throws
  REQUIRE(j.is_object());

  CHECK(j.at("feasible") == true);
  CHECK(j.at("reject_reason") == "none");
  CHECK(kBottlenecks.count(j.at("bottleneck").get<std::string>()) == 1);
  for (const char* key : {"step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu", "hfu",
                          "memory_per_gpu_gb", "cost_usd_per_hour", "cost_usd_per_million_tokens", "total_cost_usd",
                          "wall_clock_days"}) {
    INFO(key);
    REQUIRE(finite_number(j.at(key)));
    CHECK(j.at(key).get<double>() > 0);
  }
  const double tokens_per_s = j["tokens_per_s"].get<double>();
  CHECK(j["tokens_per_s_per_gpu"].get<double>() * 16 == Approx(tokens_per_s));
  CHECK(j["mfu"].get<double>() < 1);
  CHECK(j["hfu"].get<double>() >= j["mfu"].get<double>());
  CHECK(j["cost_usd_per_hour"].get<double>() == Approx(16 * 1.90));  // 16 h100-sxm at the catalog price
  CHECK(j["tokens_per_step"].get<double>() == Approx(64.0 * 4096));
  // 1e9 tokens at tokens_per_s, stretched by failures and checkpoints (goodput)
  const double goodput = j["goodput"].get<double>();
  CHECK(goodput > 0.9);
  CHECK(goodput <= 1.0);
  CHECK(j["wall_clock_days"].get<double>() == Approx(1e9 / tokens_per_s / goodput / 86400).epsilon(1e-6));

  const nlohmann::json& time = j.at("time");
  double sum = 0;
  for (const char* key : {"compute_s", "recompute_s", "memory_bound_s", "tp_comm_s", "pp_comm_s", "bubble_s",
                          "dp_comm_s", "optimizer_s", "wan_s", "straggler_s", "ep_comm_s"}) {
    INFO(key);
    REQUIRE(finite_number(time.at(key)));
    CHECK(time.at(key).get<double>() >= 0);
    sum += time.at(key).get<double>();
  }
  CHECK(sum == Approx(j["step_time_s"].get<double>()));

  const nlohmann::json& memory = j.at("memory");
  double total_gb = 0;
  for (const char* key : {"weights_gb", "gradients_gb", "optimizer_gb", "activations_gb", "fsdp_buffers_gb",
                          "logits_gb", "outer_state_gb", "runtime_overhead_gb"}) {
    INFO(key);
    REQUIRE(finite_number(memory.at(key)));
    total_gb += memory.at(key).get<double>();
  }
  CHECK(total_gb == Approx(j["memory_per_gpu_gb"].get<double>()));
  CHECK(j["memory_per_gpu_gb"].get<double>() <= j.at("memory_capacity_gb").get<double>());

  REQUIRE(j.at("islands").is_array());
  REQUIRE(j["islands"].size() == 1);
  const nlohmann::json& island = j["islands"][0];
  CHECK(island.at("name") == "lab");
  CHECK(island.at("gpus") == 16);
  CHECK(island.at("tokens_per_s").get<double>() == Approx(tokens_per_s));
  CHECK(island.at("tokens_per_s_per_gpu").get<double>() == Approx(tokens_per_s / 16));
  CHECK(finite_number(island.at("utilization")));
  CHECK(kBottlenecks.count(island.at("bottleneck").get<std::string>()) == 1);
  CHECK(finite_number(island.at("memory_per_gpu_gb")));

  const nlohmann::json& plan = j.at("plan");
  CHECK(plan.at("tp") == 4);
  CHECK(plan.at("pp") == 2);
  CHECK(plan.at("sharding") == "none");
  CHECK(plan.at("recompute") == "selective");
}

TEST_CASE("an infeasible plan is a result (exit 0), not an error") {
  const std::string args = "estimate small.yaml --set model.preset=llama3-405b";
  const auto j_run = run_shardmeter(args + " --json");
  REQUIRE(j_run.status == 0);
  const nlohmann::json j = nlohmann::json::parse(j_run.out);
  CHECK(j.at("feasible") == false);
  CHECK(j.at("reject_reason") == "out_of_memory");
  CHECK(j.at("bottleneck") == "memory_capacity");
  CHECK(j.at("memory_per_gpu_gb").get<double>() > j.at("memory_capacity_gb").get<double>());

  const auto table = run_shardmeter(args);
  CHECK(table.status == 0);
  CHECK_THAT(table.out, Catch::Contains("INFEASIBLE (out_of_memory): needs"));
  CHECK_THAT(table.out, Catch::Contains("GB usable"));
}

TEST_CASE("estimate prints a table with the breakdowns and per-island rows") {
  const auto r = run_shardmeter("estimate multi_island.yaml");
  REQUIRE(r.status == 0);
  for (const char* text : {"Step time", "compute", "Throughput", "TFLOP/s per GPU", "MFU / HFU", "Memory per GPU",
                           "weights", "Bottleneck", "Cost", "per million tokens", "days wall-clock", "Islands",
                           "east", "west"})
    CHECK_THAT(r.out, Catch::Contains(text));
}

TEST_CASE("shardmeter --help, --version and estimate --help") {
  auto r = run_shardmeter("--help");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("estimate"));
  r = run_shardmeter("--version");
  CHECK(r.status == 0);
  CHECK(r.out == "shardmeter " SHARDMETER_VERSION "\n");
  r = run_shardmeter("estimate --help");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("Usage: shardmeter estimate SCENARIO"));
  CHECK_THAT(r.out, Catch::Contains("--set"));
}

// --batch: one compact JSON object per line, each what `estimate ... --json` prints for the same scenario and
// overrides (the command line's --set first); comments and blank lines print nothing.
TEST_CASE("estimate --batch prints one JSON line per line, equal to estimate --json") {
  const shardmeter::test::ScratchDir dir;
  const std::string lines = (dir / "lines.txt").string();
  std::ofstream(lines) << "# tp and pp of small.yaml\n--set plan.tp=2\n\nsmall.yaml --set plan.pp=4 --set 'training.micro_batch=2'\n";
  const auto r = run_shardmeter("estimate small.yaml --set plan.pp=1 --batch '" + lines + "'");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  std::istringstream out(r.out);
  std::vector<std::string> got;
  for (std::string line; std::getline(out, line);) got.push_back(line);
  REQUIRE(got.size() == 2);
  const char* expected[] = {"estimate small.yaml --set plan.pp=1 --set plan.tp=2 --json",
                            "estimate small.yaml --set plan.pp=1 --set plan.pp=4 --set training.micro_batch=2 --json"};
  for (int i = 0; i < 2; ++i) {
    INFO(expected[i]);
    const auto one = run_shardmeter(expected[i]);
    REQUIRE(one.status == 0);
    CHECK(nlohmann::json::parse(got[static_cast<std::size_t>(i)]) == nlohmann::json::parse(one.out));
  }
  // The same lines from standard input.
  CHECK(run_shardmeter("estimate small.yaml --set plan.pp=1 --batch - < '" + lines + "'").out == r.out);
}

TEST_CASE("a bad --batch line prints nothing and names the line") {
  const shardmeter::test::ScratchDir dir;
  const std::string lines = (dir / "lines.txt").string();
  std::ofstream(lines) << "--set plan.tp=2\n--set plan.tp=3\n";
  auto r = run_shardmeter("estimate small.yaml --batch '" + lines + "'");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  // small.yaml's llama3-8b has 32 heads: tp 3 does not divide them.
  CHECK(r.err == lines + ":2: --set plan.tp=3: plan.tp = 3 does not divide model.heads = 32 (from model.preset = "
                         "llama3-8b)\n");
  std::ofstream(lines) << "--set plan.tp=2\n";
  r = run_shardmeter("estimate --batch '" + lines + "'");
  CHECK(r.status == 2);
  CHECK(r.err == lines + ":1: shardmeter estimate: the line names no SCENARIO and the command line gives none "
                         "(see shardmeter estimate --help)\n");
}
