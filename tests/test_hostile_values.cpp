// Issue 14: every numeric scenario key at both ends of its declared range, through the model and the writer of
// `estimate --json`: either a located error or an estimate whose every number is finite (no NaN, inf or JSON null).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"
#include "model/job/evaluate.hpp"
#include "results/files/estimate_json.hpp"
#include "run_shardmeter.hpp"
#include "src/scenario/scenario_keys.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;
using shardmeter::testing::run_shardmeter;

namespace {

// Where a section's keys sit in a scenario with two island entries, a WAN and one link override.
std::vector<std::string> prefixes(Section section) {
  switch (section) {
    case Section::model: return {"model."};
    case Section::training: return {"training."};
    case Section::island:
    case Section::gpu_fields:
    case Section::gpu_catalog: return {"cluster.islands.0.", "cluster.islands.1."};
    case Section::efficiency: return {"cluster.islands.1.efficiency."};
    case Section::wan: return {"cluster.wan."};
    case Section::link_override: return {"cluster.links.0."};
    case Section::plan: return {"plan."};
    case Section::diloco: return {"plan.diloco."};
    case Section::runtime: return {"runtime."};
    case Section::goodput: return {"goodput."};
    default: return {};
  }
}

std::string number_text(double v) { return fmt::format("{}", v); }

// The values a key's range allows at its ends (and just inside an exclusive minimum).
std::vector<std::string> extremes(const Range& r) {
  std::vector<std::string> values;
  if (std::isfinite(r.min)) values.push_back(number_text(r.min_exclusive ? std::nextafter(r.min, r.max) : r.min));
  if (std::isfinite(r.max)) values.push_back(number_text(r.max));
  if (r.or_zero) values.push_back("0");
  return values;
}

// A non-finite number in the JSON: nlohmann writes NaN and inf as null (values are looked at, not text: a name may
// contain "null").
bool has_non_finite(const nlohmann::json& j) {
  if (j.is_null()) return true;
  if (j.is_number_float()) return !std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const auto& item : j)
      if (has_non_finite(item)) return true;
  return false;
}

}  // namespace

TEST_CASE("every numeric key at the ends of its range gives a located error or an all-finite estimate") {
  const Catalog& catalog = test::shipped_catalog();
  int estimates = 0, rejected = 0;
  for (const char* base : {"multi_island.yaml", "small.yaml"}) {
    for (const char* sync : {"synchronous", "diloco"}) {
      for (const SectionKeys& section : scenario_keys().sections()) {
        for (const std::string& prefix : prefixes(section.section)) {
          for (const KeySpec& key : section.keys) {
            for (const std::string& value : extremes(key.bounds)) {
              const std::string set = prefix + std::string(key.name) + "=" + value;
              INFO(base << " plan.sync=" << sync << " --set " << set);
              try {
                const LoadedScenario s = load_scenario(std::string(SHARDMETER_TEST_DATA_DIR) + "/" + base,
                                                       {parse_override(std::string("plan.sync=") + sync),
                                                        parse_override(set)},
                                                       catalog);
                const std::string json = results::estimate_json(s.scenario, model::evaluate(s.scenario), s.name);
                ++estimates;
                if (has_non_finite(nlohmann::json::parse(json))) FAIL_CHECK(json);
              } catch (const ScenarioError&) {
                ++rejected;  // a located error is an acceptable answer
              }
            }
          }
        }
      }
    }
  }
  // Most extremes must reach the model, not just be refused (295 estimated when written; 317 estimated and 327
  // refused after the per-stack, DiLoCo-convergence and price keys joined the table).
  INFO(rejected << " rejected");
  CHECK(estimates > 300);
}

TEST_CASE("values that overflow after unit conversion are refused at parse time with a located error") {
  // Issue 14: hbm_gib: 1e308 became inf bytes (JSON null); a WAN of 1e-25 Gbit/s hung the balanced split.
  for (const char* set : {"cluster.islands.0.hbm_gib=1e308", "cluster.wan.bandwidth_gbps=1e-25",
                          "cluster.wan.latency_ms=1e305", "cluster.islands.0.node_network_gbps=1e-9",
                          "cluster.islands.0.price_usd_per_gpu_hour=1e308", "training.tokens=1e300",
                          "cluster.islands.0.efficiency.gemm=1e-300"}) {
    INFO(set);
    const auto r = run_shardmeter(std::string("estimate multi_island.yaml --json --set ") + set);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith(std::string("--set ") + set + ": "));
    CHECK_THAT(r.err, Catch::Contains("is out of range: must be "));
    CHECK(r.out.empty());
  }
}
