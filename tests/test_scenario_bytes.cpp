// The byte contract between search/ and model::Scenario (search/README.md, "Space encoding"): the search varies
// scenarios by raw byte patches and prunes by the byte ranges of model/spec/field_id.hpp, so
//  - every FieldId names real member bytes (never padding), and
//  - every scenario the loader and the search build has zero padding, so that two scenarios with the same
//    values have the same bytes and a patch holds value changes only.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "model/spec/field_id.hpp"
#include "model/spec/scenario.hpp"
#include "model/job/evaluate.hpp"
#include "model_fixtures.hpp"
#include "padding_probe.hpp"
#include "same_estimate.hpp"
#include "src/planning/search_section.hpp"
#include "src/planning/search_space.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/scenario/zeroed.hpp"

using namespace shardmeter;

namespace {

// Every shipped scenario file (catalogs are not scenarios).
std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> paths;
  for (const char* dir : {SHARDMETER_SOURCE_DIR "/scenarios", SHARDMETER_SOURCE_DIR "/scenarios/nightly"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".yaml" && name != "gpus.yaml" && name != "links.yaml")
        paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

TEST_CASE("the padding probe finds the padding of a small struct, and some in Scenario") {
  // bool (1 byte), 7 bytes of padding, double (8), int (4), bool (1), 3 bytes of tail padding: 24 bytes.
  struct Probe {
    bool a = true;
    double b = 1;
    int c = 2;
    bool d = false;
  };
  const std::vector<bool> mask = test::padding_mask<Probe>();
  REQUIRE(mask.size() == 24);
  const std::vector<bool> expected = {false, true,  true,  true,  true,  true,  true,  true,   // a, padding
                                      false, false, false, false, false, false, false, false,  // b
                                      false, false, false, false, false, true,  true,  true};  // c, d, padding
  CHECK(mask == expected);
  // ModelSpec ends with six one-byte members after its ints; TrainingSpec starts with an 8-byte integer.
  const std::vector<bool> scenario = test::padding_mask<model::Scenario>();
  const auto first = static_cast<std::size_t>(std::find(scenario.begin(), scenario.end(), true) - scenario.begin());
  REQUIRE(first < scenario.size());
  // A scenario with one garbage padding byte is caught.
  model::Scenario s;
  cli::reset_zeroed(s);
  const unsigned char garbage = 0xAB;
  std::memcpy(reinterpret_cast<unsigned char*>(&s) + first, &garbage, 1);
  CHECK(test::nonzero_padding(s) == std::vector<std::size_t>{first});
}

TEST_CASE("same_estimate compares every field bit for bit and ignores padding") {
  const model::Estimate a = model::evaluate(test::gpt3_on_a100());
  model::Estimate b = a;
  CHECK(test::same_estimate(a, b));
  b.islands[7].memory.logits_bytes += 1;  // deep in the last island
  CHECK_FALSE(test::same_estimate(a, b));
  b = a;
  b.island_entries += 1;
  CHECK_FALSE(test::same_estimate(a, b));
  // Garbage in every padding byte changes nothing.
  b = a;
  const std::vector<bool> padding = test::padding_mask<model::Estimate>();
  REQUIRE(std::count(padding.begin(), padding.end(), true) > 0);
  for (std::size_t i = 0; i < padding.size(); ++i)
    if (padding[i]) std::memset(reinterpret_cast<unsigned char*>(&b) + i, 0xAB, 1);
  CHECK(test::same_estimate(a, b));
  // NaN equals NaN (the same bits), unlike operator==.
  model::Estimate c = a, d = a;
  c.mfu = d.mfu = std::nan("");
  CHECK(test::same_estimate(c, d));
}

TEST_CASE("every FieldId names member bytes, never padding") {
  const std::vector<bool> padding = test::padding_mask<model::Scenario>();
  for (int f = 1; f < model::kFieldIdCount; ++f) {
    const auto field = static_cast<model::FieldId>(f);
    for (int i = 0; i < (model::is_island_field(field) ? model::kMaxIslands : 1); ++i) {
      const model::ByteRange r = model::field_bytes(field, i);
      INFO(model::field_path_pattern(field) << " island " << i);
      REQUIRE(r.size > 0);
      REQUIRE(r.offset + r.size <= sizeof(model::Scenario));
      for (std::size_t b = r.offset; b < r.offset + r.size; ++b) CHECK_FALSE(padding[b]);
    }
  }
}

TEST_CASE("every shipped scenario loads with zero padding") {
  for (const std::string& path : shipped_scenarios()) {
    INFO(path);
    const cli::LoadedScenario loaded = cli::load_scenario(path, {}, test::shipped_catalog());
    CHECK(test::nonzero_padding(loaded.scenario).empty());
  }
}

TEST_CASE("every candidate of every shipped search space has zero padding") {
  int spaces = 0;
  for (const std::string& path : shipped_scenarios()) {
    INFO(path);
    const cli::LoadedScenario loaded = cli::load_scenario(path, {}, test::shipped_catalog());
    const cli::SearchSection section = cli::read_search_section(loaded.doc, test::shipped_catalog(), loaded.scenario);
    if (!section.present) continue;
    ++spaces;
    const search::Space space = cli::build_search_space(loaded, section, test::shipped_catalog());
    // Every value of every axis (the others at their first value): what any candidate is made of.
    for (int a = 0; a < space.axis_count(); ++a) {
      for (std::uint32_t v = 0; v < space.axis(a).patches.size(); ++v) {
        std::vector<std::uint32_t> values(static_cast<std::size_t>(space.axis_count()), 0);
        values[static_cast<std::size_t>(a)] = v;
        INFO(space.axis(a).name << " = " << space.axis(a).labels[v]);
        CHECK(test::nonzero_padding(space.scenario(space.index_of(values))).empty());
      }
    }
  }
  CHECK(spaces >= 5);
}
