#include <catch2/catch.hpp>

#include <map>
#include <cmath>
#include <regex>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_shardmeter.hpp"

using shardmeter::testing::run_shardmeter;

namespace {
// docs/accuracy.md states the figures `shardmeter validate` must not exceed.
double stated_in_accuracy_doc() {
  const std::string doc = shardmeter::testing::read_text(SHARDMETER_SOURCE_DIR "/docs/accuracy.md");
  std::smatch m;
  REQUIRE(std::regex_search(doc, m, std::regex(R"(overall MAPE ([0-9.]+)% over ([0-9]+) runs)")));
  return std::stod(m[1]);
}
// The MAPE docs/accuracy.md's table states for one source group: "| ... (`NAME`) | stack | runs | X % | worst |".
double stated_group_mape(const std::string& name) {
  const std::string doc = shardmeter::testing::read_text(SHARDMETER_SOURCE_DIR "/docs/accuracy.md");
  std::smatch m;
  REQUIRE(std::regex_search(doc, m, std::regex("\\(`" + name + R"(`\) \| \S+ \| [0-9]+ \| ([0-9.]+) %)")));
  return std::stod(m[1]);
}
// A line "<label> MAPE X% over N runs": its figure and row count, in `text` (at a line start when `line_start`:
// validate's own output) or anywhere (docs/accuracy.md). REQUIREs that the line is there.
struct Figure {
  double mape = 0;
  int runs = 0;
  std::string line;
};
Figure figure_in(const std::string& text, const std::string& label, bool line_start) {
  std::smatch m;
  const std::regex line((line_start ? "\\n" : "") + label + R"( MAPE ([0-9.]+)% over ([0-9]+) runs)");
  REQUIRE(std::regex_search(text, m, line));
  return {std::stod(m[1]), std::stoi(m[2]), m[0].str()};
}
}  // namespace

TEST_CASE("shardmeter validate: MAPE no worse than docs/accuracy.md states, within issue 9's thresholds") {
  const auto r = run_shardmeter("validate");
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(R"(\noverall MAPE ([0-9.]+)% over ([0-9]+) runs\n$)")));
  const double actual = std::stod(m[1]);
  INFO("validate prints " << m[0].str() << "; docs/accuracy.md states " << stated_in_accuracy_doc() << "%");
  CHECK(actual <= stated_in_accuracy_doc() + 1e-9);
  CHECK(actual <= 7.0);  // issue 9: overall MAPE at most 7 % over every scored row
  CHECK(std::stoi(m[2]) >= 132);
  // Every dense source group at most 12 % (issue 9), read from the "MAPE per source" lines. The MoE groups (issue 10,
  // holdout only) are held to the figure docs/accuracy.md's table states for them, two of which miss 12 %.
  const std::string per_source = r.out.substr(r.out.find("MAPE per source"), r.out.find("MAPE per use") - r.out.find("MAPE per source"));
  const std::regex group(R"(\n  (\S+) +([0-9]+) runs  MAPE +([0-9.]+)%)");
  int groups = 0;
  for (std::sregex_iterator it(per_source.begin(), per_source.end(), group), end; it != end; ++it, ++groups) {
    const std::string name = (*it)[1].str();
    INFO("source group " << name);
    if (name.starts_with("moe-")) CHECK(std::stod((*it)[3].str()) <= stated_group_mape(name) + 1e-9);
    else CHECK(std::stod((*it)[3].str()) <= 12.0);
  }
  CHECK(groups >= 12);
  // Every scored row shows a measured and a predicted time.
  CHECK_THAT(r.out, Catch::Contains("kor-t5-gpt-175b-seqsel") && Catch::Contains("MAPE per source"));
}

TEST_CASE("shardmeter validate --json: rows, groups and the overall MAPE of the text report") {
  const auto text = run_shardmeter("validate");
  const auto json = run_shardmeter("validate --json");
  REQUIRE(json.status == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  std::smatch m;
  REQUIRE(std::regex_search(text.out, m, std::regex(R"(\noverall MAPE ([0-9.]+)% over ([0-9]+) runs\n$)")));
  // The text rounds to one decimal: 5.44 prints as 5.4.
  CHECK(j.at("overall_mape_pct").get<double>() == Approx(std::stod(m[1])).margin(0.05));
  CHECK(j.at("overall_runs").get<int>() == std::stoi(m[2]));
  int scored = 0;
  for (const nlohmann::json& row : j.at("rows")) {
    for (const char* key : {"id", "source", "use", "measured", "predicted", "error_pct", "scored"})
      CHECK(row.contains(key));
    if (row.at("scored").get<bool>()) ++scored;
  }
  CHECK(scored == std::stoi(m[2]));
  int runs = 0;
  for (const nlohmann::json& g : j.at("groups")) {
    runs += g.at("runs").get<int>();
    CHECK(g.at("worst_pct").get<double>() >= g.at("mape_pct").get<double>());
  }
  CHECK(runs == scored);   // the groups partition the scored rows
}

TEST_CASE("shardmeter validate: a malformed table is an error naming file and line, status 2") {
  const auto r = run_shardmeter("validate bad_published_runs.csv");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("bad_published_runs.csv:3:"));
}

TEST_CASE("shardmeter validate: the held-out published runs, scored apart and never fitted, as docs/accuracy.md states") {
  const Figure stated =
      figure_in(shardmeter::testing::read_text(SHARDMETER_SOURCE_DIR "/docs/accuracy.md"), "held-out", false);
  const auto r = run_shardmeter("validate");
  REQUIRE(r.status == 0);
  const Figure printed = figure_in(r.out, "held-out", true);
  INFO("validate prints " << printed.line << "; docs/accuracy.md states " << stated.line);
  CHECK(printed.mape <= stated.mape + 1e-9);
  CHECK(printed.runs == stated.runs);
  CHECK(printed.runs >= 10);
  CHECK(printed.mape <= 8.0);   // issue 9: aim for at most 8 % on published runs outside the table
  // The held-out section comes before the calibration table's report, which still ends with the overall line.
  CHECK(r.out.find("held-out MAPE") < r.out.find("MAPE per source"));

  const nlohmann::json j = nlohmann::json::parse(run_shardmeter("validate --json").out);
  const nlohmann::json& h = j.at("heldout");
  CHECK(h.at("mape_pct").get<double>() == Approx(printed.mape).margin(0.05));
  CHECK(h.at("runs").get<int>() == printed.runs);
  // Not in the calibration table (so `calibrate`, which reads only that table, never fits them), and from at
  // least three source groups.
  std::set<std::string> table_ids;
  for (const nlohmann::json& row : j.at("rows")) table_ids.insert(row.at("id").get<std::string>());
  std::set<std::string> sources;
  for (const nlohmann::json& row : h.at("rows")) {
    INFO(row.at("id").get<std::string>());
    CHECK(table_ids.count(row.at("id").get<std::string>()) == 0);
    CHECK(row.at("use").get<std::string>() != "calibrate");
    sources.insert(row.at("source").get<std::string>());
  }
  CHECK(sources.size() >= 3);
}

TEST_CASE("shardmeter calibrate returns the catalog's constants: scenarios/gpus.yaml holds the fit (docs/model.md §13)") {
  // The brief's rule is that the efficiency constants are what `calibrate` fits per (family, stack). The objective
  // is flat near its optimum, so a model change can move the optimum without moving `validate`; this test makes such
  // a drift fail instead of leaving the catalog and the fit apart. Every entry of the family carries the set.
  const auto r = run_shardmeter("calibrate");
  REQUIRE(r.status == 0);
  const std::string catalog = shardmeter::testing::read_text(SHARDMETER_SOURCE_DIR "/scenarios/gpus.yaml");
  // Catalog entries: "\n  NAME:\n" ... up to the next such line; each names its "    family: F".
  std::vector<std::pair<std::string, std::string>> entries;  // (family, block text)
  const std::regex entry_head(R"(\n  ([a-z0-9-]+):\n)");
  std::vector<std::pair<std::size_t, std::string>> heads;
  for (std::sregex_iterator it(catalog.begin(), catalog.end(), entry_head), end; it != end; ++it)
    heads.emplace_back(static_cast<std::size_t>(it->position(0)), (*it)[1].str());
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const std::size_t to = i + 1 < heads.size() ? heads[i + 1].first : catalog.size();
    const std::string block = catalog.substr(heads[i].first, to - heads[i].first);
    std::smatch fm;
    if (std::regex_search(block, fm, std::regex(R"(\n    family: ([a-z0-9-]+))"))) entries.emplace_back(fm[1].str(), block);
  }
  REQUIRE(entries.size() >= 8);
  // "  family F (...), stack S:  # ..." then "    S: {gemm: ..., contention_scale: ...}".
  const std::regex fitted(R"(\n  family ([a-z0-9-]+) \([^)]*\), stack ([a-z_0-9]+):[^\n]*\n    (\2: \{[^}\n]*\}))");
  int sets = 0;
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), fitted), end; it != end; ++it, ++sets) {
    const std::string family = (*it)[1].str();
    const std::string line = (*it)[3].str();
    int carried = 0;
    for (const auto& [fam, block] : entries) {
      if (fam != family) continue;
      INFO("family " << family << ": calibrate fits `" << line << "`; catalog entry:\n" << block.substr(0, 40));
      CHECK(block.find("\n        " + line + "\n") != std::string::npos);
      ++carried;
    }
    CHECK(carried >= 1);
  }
  CHECK(sets >= 5);  // a100 × {megatron, torch_fsdp1}, h100 × {megatron_te, torch_fsdp1}, b200 × megatron_te
}

TEST_CASE("shardmeter validate: decentralized anchors scored against each row's own value, in text and JSON (issue 31)") {
  const auto text = run_shardmeter("validate");
  REQUIRE(text.status == 0);
  const nlohmann::json j = nlohmann::json::parse(run_shardmeter("validate --json").out);
  const nlohmann::json& d = j.at("decentralized");
  // Every group the text prints is in the JSON, with the same row count.
  int groups = 0;
  for (const nlohmann::json& g : d.at("groups")) {
    ++groups;
    const std::string name = g.at("name").get<std::string>();
    INFO(name);
    std::smatch m;
    REQUIRE(std::regex_search(text.out, m, std::regex("\n  " + name + R"( +([0-9]+)  )")));
    CHECK(g.at("rows").get<int>() == std::stoi(m[1]));
  }
  CHECK(groups >= 4);
  // INTELLECT-1: the global row is scored against its 0.83, the US-only row against its 0.96 (5 % tolerance); the
  // MFU rows are the range's bounds.
  std::map<std::string, nlohmann::json> rows;
  for (const nlohmann::json& r : d.at("rows")) rows[r.at("id").get<std::string>()] = r;
  const nlohmann::json& us = rows.at("intellect1-cu-us");
  const nlohmann::json& global = rows.at("intellect1-cu-global");
  CHECK(us.at("published").get<double>() == 0.96);
  CHECK(global.at("published").get<double>() == 0.83);
  CHECK(us.at("predicted").get<double>() == global.at("predicted").get<double>());  // the same shipped scenario
  const double predicted = us.at("predicted").get<double>();
  CHECK(us.at("inside").get<bool>() == (predicted >= 0.96 * 0.95 && predicted <= 0.96 * 1.05));
  CHECK(global.at("inside").get<bool>() == (predicted >= 0.83 * 0.95 && predicted <= 0.83 * 1.05));
  CHECK(rows.at("intellect1-mfu-min").at("kind") == "at_least");
  CHECK(rows.at("intellect1-mfu-max").at("kind") == "at_most");
  CHECK(us.at("error_pct").get<double>() == Approx((predicted - 0.96) / 0.96 * 100));
  CHECK_THAT(text.out, Catch::Contains("intellect1-cu-us") && Catch::Contains("published 0.960") &&
                       Catch::Contains("within 5 % of their own published value"));
}

TEST_CASE("shardmeter validate: oom_false, the published runs the model calls out of memory, per group and in total") {
  const auto text = run_shardmeter("validate");
  REQUIRE(text.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(text.out, m,
                            std::regex(R"(\nout of memory by the model \(oom_false\): ([0-9]+) of ([0-9]+) scored runs\n)")));
  const nlohmann::json j = nlohmann::json::parse(run_shardmeter("validate --json").out);
  // The total is the count of scored rows marked `fits: false`, and the groups partition it.
  int unfit = 0;
  for (const nlohmann::json& row : j.at("rows"))
    if (row.at("scored").get<bool>() && !row.at("fits").get<bool>()) ++unfit;
  CHECK(j.at("overall_oom_false").get<int>() == unfit);
  CHECK(std::stoi(m[1]) == unfit);
  CHECK(std::stoi(m[2]) == j.at("overall_runs").get<int>());
  int by_group = 0;
  for (const nlohmann::json& g : j.at("groups")) by_group += g.at("oom_false").get<int>();
  CHECK(by_group == unfit);
  // Each "MAPE per source" line carries its group's count.
  const std::string per_source =
      text.out.substr(text.out.find("MAPE per source"), text.out.find("MAPE per use") - text.out.find("MAPE per source"));
  int printed = 0;
  const std::regex group(R"(\n  \S+ +[0-9]+ runs  MAPE +[0-9.]+%  worst +[0-9.]+%  oom_false ([0-9]+))");
  for (std::sregex_iterator it(per_source.begin(), per_source.end(), group), end; it != end; ++it)
    printed += std::stoi((*it)[1].str());
  CHECK(printed == unfit);
  // The held-out table carries its own count.
  int heldout_unfit = 0;
  for (const nlohmann::json& row : j.at("heldout").at("rows"))
    if (row.at("scored").get<bool>() && !row.at("fits").get<bool>()) ++heldout_unfit;
  CHECK(j.at("heldout").at("oom_false").get<int>() == heldout_unfit);
}

TEST_CASE("shardmeter validate: no more scored runs called out of memory than docs/accuracy.md accounts for") {
  // docs/accuracy.md "Memory verdicts": 1 of 228 scored runs (llm-foundry MPT-1B at micro-batch 10 on A100-40GB) and
  // none of the held-out runs; the target is 0. A change that refuses another run that ran fails here.
  const nlohmann::json j = nlohmann::json::parse(run_shardmeter("validate --json").out);
  CHECK(j.at("overall_oom_false").get<int>() <= 1);
  CHECK(j.at("heldout").at("oom_false").get<int>() == 0);
}

TEST_CASE("shardmeter validate: peak memory per GPU scored against the figure its source publishes") {
  const auto text = run_shardmeter("validate");
  REQUIRE(text.status == 0);
  const nlohmann::json j = nlohmann::json::parse(run_shardmeter("validate --json").out);
  const nlohmann::json& mem = j.at("memory");
  REQUIRE(mem.at("runs").get<int>() >= 1);
  // Each row with a published figure: error = (predicted - published) / published; the MAPE is their mean.
  double sum = 0;
  int rows = 0;
  for (const nlohmann::json& row : j.at("rows")) {
    if (row.at("published_memory_gb").is_null()) continue;
    const double published = row.at("published_memory_gb").get<double>();
    const double predicted = row.at("predicted_reserved_gb").get<double>();
    CHECK(row.at("memory_error_pct").get<double>() == Approx(100.0 * (predicted - published) / published));
    sum += std::fabs(row.at("memory_error_pct").get<double>());
    ++rows;
    // torchtitan docs/performance.md @eaea6f6 Table 1, "FSDP": 82.4 GiB = 82.4 x 2^30 bytes = 88.476 GB.
    if (row.at("id") == "tt-h100gt-llama3.1-8b-g8") CHECK(published == Approx(88.476).epsilon(1e-4));
  }
  CHECK(rows == mem.at("runs").get<int>());
  CHECK(mem.at("mape_pct").get<double>() == Approx(sum / rows));
  std::smatch m;
  REQUIRE(std::regex_search(text.out, m, std::regex(R"(\nmemory MAPE ([0-9.]+)% over ([0-9]+) runs)")));
  CHECK(std::stoi(m[2]) == rows);
  CHECK(std::stod(m[1]) == Approx(mem.at("mape_pct").get<double>()).margin(0.05));
  // The memory validation group (issue 29) as docs/accuracy.md reports it: the same figure and row count.
  const Figure stated =
      figure_in(shardmeter::testing::read_text(SHARDMETER_SOURCE_DIR "/docs/accuracy.md"), "memory", false);
  INFO("validate prints " << m[0].str() << "; docs/accuracy.md states " << stated.line);
  CHECK(std::stod(m[1]) == Approx(stated.mape).margin(0.05));
  CHECK(std::stoi(m[2]) == stated.runs);
  CHECK(rows >= 20);
}

TEST_CASE("shardmeter validate: the published small-model TP sweep, scored apart, never fitted (issue 29 point 3)") {
  // scenarios/validation/small_model_runs.csv: every single-node 1B, 3B and 8B run with a measurement in the
  // Ultra-Scale Playbook's sweep (32 + 24 + 13). Kept out of the held-out figure (whose test above still counts its 37 runs) and of `calibrate`.
  const Figure stated = figure_in(
      shardmeter::testing::read_text(SHARDMETER_SOURCE_DIR "/docs/accuracy.md"), "small-model sweep", false);
  const auto r = run_shardmeter("validate");
  REQUIRE(r.status == 0);
  const Figure printed = figure_in(r.out, "small-model sweep", true);
  INFO("validate prints " << printed.line << "; docs/accuracy.md states " << stated.line);
  CHECK(printed.mape == Approx(stated.mape).margin(0.05));
  CHECK(printed.runs == stated.runs);
  CHECK(printed.runs == 69);
  CHECK(r.out.find("small-model sweep MAPE") < r.out.find("MAPE per source"));

  const nlohmann::json j = nlohmann::json::parse(run_shardmeter("validate --json").out);
  const nlohmann::json& s = j.at("small_model");
  CHECK(s.at("runs").get<int>() == 69);
  CHECK(s.at("mape_pct").get<double>() == Approx(printed.mape).margin(0.05));
  std::set<std::string> table_ids;
  for (const nlohmann::json& row : j.at("rows")) table_ids.insert(row.at("id").get<std::string>());
  for (const nlohmann::json& row : j.at("heldout").at("rows")) table_ids.insert(row.at("id").get<std::string>());
  bool tp8 = false;
  for (const nlohmann::json& row : s.at("rows")) {
    INFO(row.at("id").get<std::string>());
    CHECK(table_ids.count(row.at("id").get<std::string>()) == 0);
    CHECK(row.at("use").get<std::string>() == "holdout");
    // The issue's example, DP 1 x TP 8 at micro-batch 1: 6,907 tokens/s/GPU published, GBS 256 x 4096 tokens on
    // 8 GPUs => 1,048,576 / (6,907 x 8) = 18.977 s per step.
    if (row.at("id") == "usp-1b-n1-dp1-tp8-pp1-mbs1-ga256-z0") {
      tp8 = true;
      CHECK(row.at("measured").get<double>() == Approx(18.977).epsilon(1e-4));
    }
  }
  CHECK(tp8);
}
