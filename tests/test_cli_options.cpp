// Options several commands share are declared once (src/cli/command_line.cpp): every command that takes one shows
// the same help text for it and rejects the same bad values with the same words.
#include <catch2/catch.hpp>

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "run_shardmeter.hpp"

using shardmeter::testing::run_shardmeter;

namespace {

// The help of `option` in `shardmeter <command> --help`, whitespace collapsed (Boost wraps each command's option
// column at its own width): from the option's name to the next option's line.
std::string option_help(const std::string& command, const std::string& option) {
  const auto r = run_shardmeter(command + " --help");
  REQUIRE(r.status == 0);
  const auto start = r.out.find("  " + option + " ");
  if (start == std::string::npos) return "";
  auto end = r.out.find("\n  -", start + 1);
  if (end == std::string::npos) end = r.out.size();
  std::string text;  // runs of whitespace collapsed to one space
  for (const char c : r.out.substr(start, end - start)) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0)
      text += c;
    else if (!text.empty() && text.back() != ' ')
      text += ' ';
  }
  return text;
}

// The one line on stderr without its "shardmeter <command>: " prefix and its " (see ... --help)" suffix.
std::string problem(const std::string& command, const std::string& err) {
  const std::string prefix = "shardmeter " + command + ": ";
  const std::string suffix = " (see shardmeter " + command + " --help)\n";
  REQUIRE(err.starts_with(prefix));
  REQUIRE(err.ends_with(suffix));
  return err.substr(prefix.size(), err.size() - prefix.size() - suffix.size());
}

const std::map<std::string, std::vector<std::string>> kSharedBy = {
    {"--set", {"estimate", "search", "sweep", "thresholds"}},
    {"--data-dir", {"estimate", "search", "sweep", "thresholds", "validate", "calibrate", "export", "nightly"}},
    {"--threads", {"search", "nightly"}},
    {"--json", {"estimate", "sweep", "thresholds"}},
};

}  // namespace

TEST_CASE("a shared option has the same help text in every command that takes it") {
  for (const auto& [option, commands] : kSharedBy) {
    INFO(option);
    std::set<std::string> texts;
    for (const std::string& command : commands) {
      INFO(command);
      const std::string text = option_help(command, option);
      CHECK_FALSE(text.empty());
      texts.insert(text);
    }
    CHECK(texts.size() == 1);
  }
}

TEST_CASE("one bound for --threads in every command: 0 (all cores) to 1024, with the same message") {
  // search and nightly get as far as reading their options: the bound is checked before any file is read.
  for (const std::string value : {"-1", "1025"}) {
    INFO(value);
    std::set<std::string> problems;
    for (const std::string& command : kSharedBy.at("--threads")) {
      const auto r = run_shardmeter(command + " nothing.yaml --out out --threads " + value);
      CHECK(r.status == 2);
      problems.insert(problem(command, r.err));
    }
    CHECK(problems == std::set<std::string>{"--threads must be between 0 and 1024"});
  }
  std::set<std::string> problems;
  for (const std::string& command : kSharedBy.at("--threads")) {
    const auto r = run_shardmeter(command + " nothing.yaml --threads four");
    CHECK(r.status == 2);
    problems.insert(problem(command, r.err));
  }
  CHECK(problems == std::set<std::string>{"the argument ('four') for option '--threads' is invalid"});
}

TEST_CASE("a malformed --set is the same error in every command that takes it") {
  for (const std::string& command : kSharedBy.at("--set")) {
    INFO(command);
    const std::string axis = command == "sweep" ? " --axis plan.tp=[1]" : "";
    const auto r = run_shardmeter(command + " small.yaml" + axis + " --set plan.tp");
    CHECK(r.status == 2);
    CHECK(r.err == "--set plan.tp: plan.tp is not KEY=VALUE (e.g. --set plan.tp=4)\n");
  }
}

TEST_CASE("numeric options are checked against their declared bounds") {
  auto r = run_shardmeter("search small.yaml --time-limit -1");
  CHECK(r.status == 2);
  CHECK(problem("search", r.err) == "--time-limit must be at least 0");
  r = run_shardmeter("search small.yaml --evaluations 0");
  CHECK(r.status == 2);
  CHECK(problem("search", r.err) == "--evaluations must be at least 1");
}
