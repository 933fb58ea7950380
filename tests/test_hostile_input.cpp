// Issue 14: inputs an attacker or an unlucky operator would give. Each gets a located message and status 2 (or a
// correct result) quickly; none crashes, hangs or exhausts memory.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_shardmeter.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/scenario/scenario_document.hpp"

using namespace shardmeter::cli;
using shardmeter::testing::run_shardmeter;

namespace {

std::string dotted(std::size_t parts) {
  std::string key = "a";
  for (std::size_t i = 1; i < parts; ++i) key += ".a";
  return key;
}

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a dotted key of 45,000 parts is refused at once, not after gigabytes of copies") {
  // apply_override recorded every prefix of the path: sum of 2k characters over 45,000 parts = 2 * 10^9 bytes.
  const auto start = std::chrono::steady_clock::now();
  const std::string huge = dotted(45'000);
  CHECK_THAT(message_of([&] { parse_override(huge + "=1"); }),
             Catch::Contains("is not a scenario key: longer than 200 characters"));
  CHECK_THAT(message_of([&] { axis_from_text(huge + "=[1, 2]"); }),
             Catch::Contains("is not a scenario key: longer than 200 characters"));
  ScenarioDocument doc = scenario_document_from_text("x.yaml", "name: x\n");
  CHECK_THAT(message_of([&] { apply_override(doc, Override{huge, "1", huge + "=1"}); }),
             Catch::Contains("longer than 200 characters"));
  // Nine parts: short, but deeper than any key a scenario has.
  CHECK(message_of([&] { parse_override(dotted(9) + "=1"); }) ==
        "--set a.a.a.a.a.a.a.a.a=1: a.a.a.a.a.a.a.a.a = 1 is not a scenario key: more than 8 dotted parts");
  CHECK(message_of([&] { parse_override(dotted(8) + "=1"); }).empty());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("a search.axes key of 45,000 parts in a file is a located error, status 2") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardmeter_hostile_axes";
  std::filesystem::create_directories(dir);
  for (const std::size_t parts : {45'000, 150}) {
    std::ofstream(dir / "s.yaml") << "name: s\nmodel: {preset: llama3-8b}\ntraining: {global_batch: 8}\n"
                                     "cluster: {islands: [{gpu: h100-sxm, gpus: 8}]}\nsearch:\n  axes:\n    ? "
                                  << "plan." << dotted(parts) << "\n    : [1, 2]\n";  // explicit: implicit keys stop at 1024
    const auto r = run_shardmeter("search s.yaml --quiet", dir.string());
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith(parts > 1000 ? "s.yaml:7:7: " : "s.yaml:8:7: "));  // the key, its values
    // 45,000 parts: the file's limit on one value (4096 bytes) refuses it first; 150 parts: the key's own limit.
    CHECK_THAT(r.err, Catch::Contains(parts > 1000 ? "holds a value of 90004 bytes (at most 4096)"
                                                   : "is not a scenario key: longer than 200 characters"));
  }
  std::filesystem::remove_all(dir);
}

namespace {

// Writes `text` to `name` in a fresh directory and runs `shardmeter <command> name <more>` there.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& tag)
      : dir(std::filesystem::temp_directory_path() / ("shardmeter_hostile_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
  }
  shardmeter::testing::CliResult run(const std::string& args) const { return run_shardmeter(args, dir.string()); }
};

const std::string kValid =
    "name: s\nmodel: {preset: llama3-8b}\ntraining: {global_batch: 8}\ncluster: {islands: [{gpu: h100-sxm, gpus: 8}]}\n";

}  // namespace

TEST_CASE("malformed text is a located error with status 2, not an exception or a silent success") {
  const Scratch s("text");
  struct Case {
    const char* what;
    std::string text;
    std::string message;  // the whole stderr line
  };
  const std::vector<Case> cases = {
      {"invalid UTF-8 in a name", "name: \"bad\xff\"\n" + kValid.substr(8),
       "x.yaml:1:11: is not valid UTF-8 text (byte 0xff here)\n"},
      {"a control character", "name: a\x0b" "b\n", "x.yaml:1:8: holds the control character U+000B; remove it\n"},
      {"CR-only line endings", "name: s\rmodel: {}\r", "x.yaml:1:8: ends a line with a lone CR (old Mac line endings); save it with LF or CRLF\n"},
      {"an empty file", "", "x.yaml:1:1: is not a scenario: expected a map of keys (name, model, training, cluster, plan)\n"},
      {"a second YAML document", kValid + "---\nname: t\n", "x.yaml:5:1: holds more than one YAML document (a second one, or stray text after the first)\n"},
      // yaml-cpp's LoadAll looped forever (and allocated without bound) on a stray ',' (found by fuzz_scenario).
      {"a stray comma", ",\n", "x.yaml:1:1: holds more than one YAML document (a second one, or stray text after the first)\n"},
      {"deep nesting", "name: " + std::string(40, '[') + std::string(40, ']') + "\n", "x.yaml:1:39: nests deeper than 32 levels\n"},
      {"an island named like an index", "name: s\nmodel: {preset: llama3-8b}\ntraining: {global_batch: 8}\n"
                                        "cluster: {islands: [{name: \"1\", gpu: h100-sxm, gpus: 8}]}\n",
       "x.yaml:4:28: cluster.islands.0.name = 1 is a number; a name needs a letter (numbers are indices)\n"},
      {"a name with markup", "name: \"<b>x</b>\"\n" + kValid.substr(8),
       "x.yaml:1:7: name = <b>x</b> is not a plain name: use letters, digits, '.', '_' and '-', starting with a letter or digit\n"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    s.write("x.yaml", c.text);
    const auto r = s.run("estimate x.yaml --json");
    CHECK(r.status == 2);
    CHECK(r.err == c.message);
    CHECK(r.out.empty());
  }
}

TEST_CASE("size limits: a huge file, a huge list and an alias bomb are refused quickly") {
  const Scratch s("size");
  const auto start = std::chrono::steady_clock::now();
  s.write("big.yaml", kValid + "description: \"" + std::string(2 << 20, 'x') + "\"\n");
  auto r = s.run("estimate big.yaml");
  CHECK(r.status == 2);
  CHECK(r.err == "big.yaml: is too large: 2097278 bytes (at most 1048576 are read)\n");
  std::string islands = "name: s\nmodel: {preset: llama3-8b}\ntraining: {global_batch: 8}\ncluster:\n  islands:\n";
  for (int i = 0; i < 5000; ++i) islands += "    - {gpu: h100-sxm, gpus: 8}\n";
  s.write("islands.yaml", islands);
  r = s.run("estimate islands.yaml");
  CHECK(r.status == 2);
  CHECK(r.err == "islands.yaml:6:5: holds a list of 5000 entries (at most 4096)\n");
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c)
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + "]\n";
  s.write("bomb.yaml", bomb + kValid);
  r = s.run("estimate bomb.yaml");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("holds more than 200000 values (counting what aliases repeat)"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

TEST_CASE("values of --set: junk after the value, a second document and invalid UTF-8 are refused") {
  const Scratch s("set");
  s.write("x.yaml", kValid);
  auto r = s.run("estimate x.yaml --set 'plan.tp=1\n---\n2'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("holds more than one YAML document"));
  r = s.run("estimate x.yaml --set 'plan.tp=,'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("holds more than one YAML document"));
  r = s.run("estimate x.yaml --set 'plan.tp=[1, 2] x'");
  CHECK(r.status == 2);
  r = s.run("estimate x.yaml --set \"$(printf 'plan.tp=\\377')\"");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("is not valid UTF-8 text"));
}

TEST_CASE("an output path equal to an input or to another output is refused before any work") {
  const Scratch s("collide");
  s.write("s.yaml", kValid + "search:\n  axes:\n    plan.tp: [1, 2]\n");
  auto r = s.run("search s.yaml --quiet --csv s.yaml");
  CHECK(r.status == 2);
  CHECK(r.err == "shardmeter search: --csv s.yaml is the SCENARIO s.yaml, an input; refusing to overwrite it "
                 "(choose another output path)\n");
  CHECK(shardmeter::testing::read_text(s.dir / "s.yaml").starts_with("name: s"));
  r = s.run("search s.yaml --quiet -o f.h5 --json ./f.h5");
  CHECK(r.status == 2);
  CHECK(r.err == "shardmeter search: --json ./f.h5 and -o f.h5 name the same file; give each output its own path\n");
  r = s.run("search s.yaml --quiet -o g.h5");
  REQUIRE(r.status == 0);
  const std::string front = shardmeter::testing::read_text(s.dir / "g.h5");
  r = s.run("report g.h5 -o g.h5");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("-o g.h5 is the FRONT.h5 g.h5, an input"));
  CHECK(shardmeter::testing::read_text(s.dir / "g.h5") == front);
  r = s.run("export g.h5 --format torchrun -o g.h5");
  CHECK(r.status == 2);
  CHECK(shardmeter::testing::read_text(s.dir / "g.h5") == front);
  // /dev/null twice is not a collision: nothing is replaced.
  r = s.run("search s.yaml --quiet --csv /dev/null --json /dev/null");
  CHECK(r.status == 0);
}

TEST_CASE("an empty output path is a usage error, not a silent success") {
  const Scratch s("empty");
  s.write("s.yaml", kValid + "search:\n  axes:\n    plan.tp: [1, 2]\n");
  const auto r = s.run("search s.yaml --quiet -o ''");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("shardmeter search: --output needs a value"));
}

TEST_CASE("a foreign file given as a price file is not echoed") {
  const Scratch s("prices");
  std::string foreign = "root:x:0:0:root:/root:/bin/bash\n";
  for (int i = 0; i < 20; ++i) foreign += "user" + std::to_string(i) + ":x:100" + std::to_string(i) + ":secret-line\n";
  s.write("passwd", foreign);
  s.write("n.yaml", kValid);
  std::filesystem::create_directories(s.dir / "nightly");
  s.write("nightly/n.yaml", kValid + "search:\n  axes:\n    plan.tp: [1, 2]\n");
  const auto r = s.run("nightly nightly --prices passwd --out out");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("passwd"));
  CHECK_THAT(r.err, !Catch::Contains("user5"));
  CHECK(r.err.size() < 400);
}

TEST_CASE("validate refuses a directory, an empty file and a table without runs") {
  const Scratch s("validate");
  s.write("empty.csv", "");
  s.write("header.csv", "id,source_group\n");
  std::filesystem::create_directories(s.dir / "adir");
  for (const char* args : {"validate adir", "validate empty.csv", "validate header.csv"}) {
    INFO(args);
    const auto r = s.run(args);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
  }
  CHECK_THAT(s.run("validate adir").err, Catch::Contains("is a directory"));
  CHECK_THAT(s.run("validate empty.csv").err, Catch::Contains("is empty"));
  CHECK(s.run("validate header.csv").err == "header.csv:1:1: has a header but no runs\n");
}

TEST_CASE("estimate checks the search.axes keys and their end values, as search does") {
  const Scratch s("axes");
  s.write("typo.yaml", kValid + "search:\n  axes:\n    plan.tpp: [1, 2]\n");
  auto r = s.run("estimate typo.yaml");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("typo.yaml:7:15: "));
  CHECK_THAT(r.err, Catch::Contains("plan.tpp"));
  s.write("bad_end.yaml", kValid + "search:\n  axes:\n    cluster.islands.0.gpu: [h100-sxm, h100]\n");
  r = s.run("estimate bad_end.yaml");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("h100"));
}

TEST_CASE("catalog GPU and link names are plain names too") {
  const Scratch s("catalog");
  std::filesystem::create_directories(s.dir / "data");
  std::filesystem::copy(SHARDMETER_SOURCE_DIR "/scenarios/models", s.dir / "data/models");
  std::filesystem::copy_file(SHARDMETER_SOURCE_DIR "/scenarios/links.yaml", s.dir / "data/links.yaml");
  std::string gpus = shardmeter::testing::read_text(SHARDMETER_SOURCE_DIR "/scenarios/gpus.yaml");
  const auto at = gpus.find("\n  h100-sxm:");
  REQUIRE(at != std::string::npos);
  gpus.replace(at, 12, "\n  \"h100;rm\":");
  s.write("data/gpus.yaml", gpus);
  s.write("x.yaml", kValid);
  const auto r = s.run("estimate x.yaml --data-dir data");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("data/gpus.yaml:"));
  CHECK_THAT(r.err, Catch::Contains("gpus = h100;rm is not a plain name"));
}
