// `shardmeter search` through the built binary: the HDF5 contract, the same front for any thread count,
// constraints honoured in the written front, infeasible spaces, bad input, --all, CSV/JSON, and Ctrl-C.
#include <catch2/catch.hpp>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <H5Cpp.h>
#include <fmt/format.h>

#include "results/files/csv.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/json.hpp"
#include "run_shardmeter.hpp"
#include "tests/results_test_points.hpp"

extern char** environ;

using namespace shardmeter;
using shardmeter::testing::read_text;
using shardmeter::testing::run_shardmeter;
using test::ScratchDir;

namespace {

const std::string kSmall = SHARDMETER_TEST_DATA_DIR "/search_small.yaml";

testing::CliResult search(const std::string& args, const ScratchDir& dir) {
  return run_shardmeter("search '" + kSmall + "' " + args, dir.path().string());
}

// The raw bytes of the /front dataset (every column, fixed-length strings included).
std::vector<char> front_bytes(const std::filesystem::path& file) {
  H5::H5File f(file.string(), H5F_ACC_RDONLY);
  const H5::DataSet ds = f.openDataSet("front");
  const H5::DataType type = ds.getDataType();
  const hsize_t rows = static_cast<hsize_t>(ds.getSpace().getSimpleExtentNpoints());
  std::vector<char> bytes(rows * type.getSize());
  if (rows > 0) ds.read(bytes.data(), type);
  return bytes;
}

}  // namespace

TEST_CASE("search writes an HDF5 front that read_front reads, with the contract attributes", "[search_cli]") {
  const ScratchDir dir;
  const auto r = search("-o front.h5 --seed 7 --threads 2", dir);
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("Pareto front: ") && Catch::Contains("Search space          432 candidates over 6 axes") &&
                        Catch::Contains("Wrote front.h5"));
  CHECK(dir.files() == std::vector<std::string>{"front.h5"});

  {
    H5::H5File f((dir / "front.h5").string(), H5F_ACC_RDONLY);
    for (const char* name : {"scenario", "version", "method", "seed", "threads", "space_size", "visited", "estimated",
                             "feasible", "elapsed_s", "complete"}) {
      INFO(name);
      CHECK(f.attrExists(name));
    }
  }
  const results::ResultFile file = results::read_front(dir / "front.h5");
  const results::RunInfo& info = file.info;
  CHECK(info.scenario_text == read_text(kSmall));
  CHECK(info.scenario_name == "search-small");
  CHECK(info.method == "exhaustive");
  CHECK(info.seed == 7);
  CHECK(info.threads == 2);
  CHECK(info.space_size == 432);
  CHECK(info.visited == 432);
  REQUIRE(info.estimated.has_value());
  CHECK(*info.estimated <= info.visited);   // rejections before the model (consistency) are visited, not estimated
  CHECK(info.feasible > 0);
  std::uint64_t rejected = 0;
  for (const auto& [reason, n] : info.rejected) rejected += n;
  CHECK(info.feasible + rejected == info.visited);
  CHECK(info.elapsed_s >= 0);
  CHECK(info.complete);
  CHECK(info.axes == std::vector<std::string>{"cluster.islands.0.gpu", "cluster.islands.0.gpus", "plan.tp", "plan.pp",
                                              "plan.sharding", "training.micro_batch"});
  REQUIRE(info.objectives.size() == 2);
  CHECK(info.objectives[0].name() == "total_cost_usd");
  // Without `objectives:` a search maximises effective (loss-equivalent) throughput (docs/search.md, issue 31).
  CHECK(info.objectives[1].name() == "effective_tokens_per_s");
  CHECK_FALSE(info.created.empty());

  const auto& rows = file.front.rows;
  REQUIRE_FALSE(rows.empty());
  CHECK_THAT(r.out, Catch::Contains("On the front          " + std::to_string(rows.size()) + "\n"));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(results::number(rows[i], "feasible") == 1);
    if (i > 0) {   // cheapest first, and each step up in cost buys throughput (a front)
      CHECK(results::number(rows[i], "total_cost_usd") >= results::number(rows[i - 1], "total_cost_usd"));
      CHECK(results::number(rows[i], "tokens_per_s") > results::number(rows[i - 1], "tokens_per_s"));
    }
    CHECK(results::text(rows[i], "axis:cluster.islands.0.gpu") == results::text(rows[i], "island0_gpu"));
    CHECK(results::text(rows[i], "axis:plan.tp") == std::to_string(results::integer(rows[i], "tp")));
  }
}

TEST_CASE("search gives the same front, byte for byte, with 1 and 2 threads", "[search_cli]") {
  const ScratchDir dir;
  for (const char* method : {"exhaustive", "anneal"}) {
    INFO(method);
    const std::string common = std::string(" --method ") + method + " --evaluations 200 --seed 3";
    REQUIRE(search("-o one.h5 --threads 1" + common, dir).status == 0);
    REQUIRE(search("-o two.h5 --threads 2" + common, dir).status == 0);
    const results::ResultFile one = results::read_front(dir / "one.h5");
    const results::ResultFile two = results::read_front(dir / "two.h5");
    CHECK(one.info.threads == 1);
    CHECK(two.info.threads == 2);
    CHECK(one.info.rejected == two.info.rejected);
    CHECK(one.info.feasible == two.info.feasible);
    REQUIRE_FALSE(one.front.rows.empty());
    CHECK(one.front.rows == two.front.rows);
    CHECK(front_bytes(dir / "one.h5") == front_bytes(dir / "two.h5"));
  }
}

TEST_CASE("constraints are honoured in the written front", "[search_cli]") {
  const ScratchDir dir;
  REQUIRE(search("-o free.h5", dir).status == 0);
  const auto free_rows = results::read_front(dir / "free.h5").front.rows;
  REQUIRE(free_rows.size() >= 3);
  // Bounds that cut into the unconstrained front: below its dearest point's cost, above its slowest throughput.
  const double max_cost = results::number(free_rows[free_rows.size() - 2], "total_cost_usd");
  const double min_throughput = results::number(free_rows[1], "tokens_per_s") * 0.5;
  const auto r = search(fmt::format("-o front.h5 --csv front.csv --json front.json"
                                    " --set search.constraints.max_total_cost_usd={}"
                                    " --set search.constraints.min_tokens_per_s={}"
                                    " --set search.constraints.max_memory_per_gpu_gb=60"
                                    " --set search.constraints.gpu_quota.h100-sxm=32",
                                    max_cost, min_throughput),
                        dir);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("max_total_cost_usd") && Catch::Contains("gpu_quota:h100-sxm"));
  const results::ResultFile file = results::read_front(dir / "front.h5");
  REQUIRE_FALSE(file.front.rows.empty());
  CHECK(file.front.rows != free_rows);
  for (const results::Row& row : file.front.rows) {
    CHECK(results::number(row, "total_cost_usd") <= max_cost);
    CHECK(results::number(row, "tokens_per_s") >= min_throughput);
    CHECK(results::number(row, "memory_per_gpu_gb") <= 60);
    if (results::text(row, "island0_gpu") == "h100-sxm") CHECK(results::integer(row, "total_gpus") <= 32);
  }
  CHECK(file.info.rejected.count("max_total_cost_usd") == 1);

  // The CSV and JSON files hold the same rows (numbers through their text forms).
  const results::CsvRecords csv = results::read_csv(dir / "front.csv");
  CHECK(csv.header == file.front.columns);
  CHECK(csv.records.size() == file.front.rows.size());
  const results::ResultFile json = results::read_json(dir / "front.json");
  CHECK(json.info.scenario_text == file.info.scenario_text);
  CHECK(json.info.feasible == file.info.feasible);
  REQUIRE(json.front.rows.size() == file.front.rows.size());
  CHECK(results::number(json.front.rows[0], "total_cost_usd") == results::number(file.front.rows[0], "total_cost_usd"));
  // --set is part of the provenance: the scenario text names it and loads back to the same constraints.
  CHECK_THAT(file.info.scenario_text, Catch::StartsWith("# " + kSmall + " with --set search.constraints.max_total_cost_usd="));
  CHECK_THAT(file.info.scenario_text, Catch::Contains("h100-sxm: 32"));
}

TEST_CASE("an infeasible space gives an empty front and says why, with exit status 0", "[search_cli]") {
  const ScratchDir dir;
  const auto r = search("-o front.h5 --set search.constraints.max_total_cost_usd=1", dir);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, !Catch::Contains("Pareto front:"));
  CHECK_THAT(r.out, Catch::Contains("No feasible plan: all 432 candidates visited were rejected. Top reasons:\n"));
  CHECK_THAT(r.out, Catch::Contains("max_total_cost_usd: total_cost_usd is above the limit "
                                    "search.constraints.max_total_cost_usd = 1"));
  CHECK_THAT(r.out, Catch::Contains("candidates that fit in memory all broke a constraint: max_total_cost_usd "));
  CHECK_THAT(r.out, Catch::Contains("On the front          0\n"));
  const results::ResultFile file = results::read_front(dir / "front.h5");
  CHECK(file.front.rows.empty());
  CHECK(file.info.complete);
  CHECK(file.info.feasible == 0);
}

TEST_CASE("a --set that breaks the base scenario is a clean error and writes nothing", "[search_cli]") {
  const ScratchDir dir;
  const auto r = search("-o front.h5 --set plan.tp=3", dir);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "--set plan.tp=3: plan.tp = 3 does not divide model.heads = 32 (from model.preset = llama3-8b)\n");
  CHECK(dir.files().empty());
}

TEST_CASE("bad search options are usage errors (status 2)", "[search_cli]") {
  const ScratchDir dir;
  auto r = search("--method greedy", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("shardmeter search: --method greedy is not one of auto, exhaustive, anneal"));
  r = search("--evaluations -5", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("shardmeter search: --evaluations must be at least 1"));
  r = search("--all", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--all needs -o FILE.h5"));
  r = search("-o no_such_dir/front.h5", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("shardmeter search: ") && Catch::Contains("no_such_dir/front.h5"));
  r = run_shardmeter("search", dir.path().string());
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("missing SCENARIO"));
  CHECK(dir.files().empty());
  r = run_shardmeter("search --help", dir.path().string());
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("--time-limit") && Catch::Contains("130 after Ctrl-C"));
}

TEST_CASE("with --all, every feasible candidate is streamed into /all", "[search_cli]") {
  const ScratchDir dir;
  REQUIRE(search("-o front.h5 --all --threads 2", dir).status == 0);
  const results::ResultFile file = results::read_front(dir / "front.h5");
  REQUIRE(file.has_all);
  const results::Table all = results::read_all(dir / "front.h5");
  CHECK(all.rows.size() == file.info.feasible);
  CHECK(all.columns == file.front.columns);
  std::set<std::int64_t> indices;
  for (const results::Row& row : all.rows) indices.insert(results::integer(row, "index"));
  CHECK(indices.size() == all.rows.size());
  for (const results::Row& row : file.front.rows) CHECK(indices.count(results::integer(row, "index")) == 1);
}

TEST_CASE("Ctrl-C or SIGTERM stops the search, writes the front found so far marked incomplete, exits 128 + signal",
          "[search_cli]") {
  const int signal = GENERATE(SIGINT, SIGTERM);   // 130, 143
  const ScratchDir dir;
  const std::string out = (dir / "front.h5").string();
  const std::string scenario = SHARDMETER_TEST_DATA_DIR "/search_long.yaml";
  std::vector<std::string> args = {SHARDMETER_BINARY, "search", scenario, "--method", "anneal", "--evaluations",
                                   "1000000000", "-o", out};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, (dir / "out.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, (dir / "err.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, SHARDMETER_BINARY, &files, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&files);

  // Once the result file's temporary file exists the search is under way (building the axes takes longer in a
  // sanitizer build; Ctrl-C before the search starts ends it without a front).
  bool started = false;
  for (int i = 0; i < 600 && !started; ++i) {
    for (const std::string& name : dir.files()) started = started || name.starts_with("front.h5.tmp.");
    if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(started);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  REQUIRE(::kill(pid, signal) == 0);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 300 && done == 0; ++i) {   // at most 30 s
    done = ::waitpid(pid, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (done == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL("shardmeter search did not stop within 30 s of the signal");
  }
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + signal);
  const std::string text = read_text(dir / "out.txt");
  CHECK_THAT(text, Catch::Contains("Complete              no: interrupted (Ctrl-C or SIGTERM)"));
  const results::ResultFile file = results::read_front(out);
  CHECK_FALSE(file.info.complete);
  CHECK(file.info.method == "anneal");
  CHECK(file.info.visited < 1000000000);   // usually about a million after the 1.5 s the search ran
  CHECK(dir.files() == std::vector<std::string>{"err.txt", "front.h5", "out.txt"});
}
