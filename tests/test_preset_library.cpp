// Model presets are read when a scenario first names one (issue 13: reading all ~30 of them was a quarter of an
// `estimate` call). A broken preset that no scenario names costs nothing and breaks nothing; naming it is an error
// located in its own file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "results_test_points.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter::cli;
namespace fs = std::filesystem;

namespace {

// A data directory with the shipped GPU and link catalogs, the shipped llama3-8b preset and one broken preset
// (its `model:` is a list, not a map).
void write_data_dir(const fs::path& dir) {
  const fs::path shipped = SHARDMETER_SOURCE_DIR "/scenarios";
  fs::create_directories(dir / "models");
  fs::copy_file(shipped / "gpus.yaml", dir / "gpus.yaml");
  fs::copy_file(shipped / "links.yaml", dir / "links.yaml");
  fs::copy_file(shipped / "models" / "llama3-8b.yaml", dir / "models" / "llama3-8b.yaml");
  std::ofstream(dir / "models" / "broken.yaml") << "name: broken\nsource: none\npublished_params_b: 1\nmodel: [1, 2]\n";
}

shardmeter::model::Scenario with_preset(const Catalog& catalog, const std::string& preset) {
  const ScenarioDocument doc = scenario_document_from_text(
      "lazy-test", "{name: t, model: {preset: " + preset +
                       "}, training: {global_batch: 8}, cluster: {islands: [{gpu: h100-sxm, gpus: 8}]}}");
  return parse_scenario(doc, catalog);
}

}  // namespace

TEST_CASE("a catalog lists its presets without reading them, and a broken one fails only where it is named") {
  const shardmeter::test::ScratchDir dir;
  write_data_dir(dir.path());
  const Catalog catalog = load_catalog(dir.path().string());  // reading broken.yaml here would throw
  CHECK(catalog.presets.names() == std::vector<std::string>{"broken", "llama3-8b"});
  CHECK(catalog.presets.has("broken"));
  CHECK_FALSE(catalog.presets.has("llama3-70b"));

  CHECK(with_preset(catalog, "llama3-8b").model.layers == 32);  // scenarios/models/llama3-8b.yaml: layers: 32
  try {
    with_preset(catalog, "broken");
    FAIL("a scenario naming the broken preset parsed");
  } catch (const ScenarioError& e) {
    CHECK(e.where().file == (dir.path() / "models" / "broken.yaml").string());
    CHECK(e.where().line == 4);   // `model: [1, 2]` is the fourth line
    CHECK(e.key() == "model");
    CHECK(e.problem() == "is not a map of model keys");
  }
}

TEST_CASE("a preset is read once, and copies of a catalog share what was read") {
  const shardmeter::test::ScratchDir dir;
  write_data_dir(dir.path());
  const Catalog catalog = load_catalog(dir.path().string());
  const Preset& first = catalog.presets.get("llama3-8b");
  const Catalog copy = catalog;
  CHECK(&copy.presets.get("llama3-8b") == &first);
  CHECK(first.info.published_params_b == 8.03);   // published_params_b: 8.03 in the file
  CHECK(first.file == (dir.path() / "models" / "llama3-8b.yaml").string());
}
